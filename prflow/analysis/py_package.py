"""Python packages as an importer sees them: module names, name lookup, ``__all__``, classes.

Everything is computed from the files of one snapshot (a :class:`SourceTree`),
never from the current directory or ``sys.path``: the same commit gives the
same answer wherever prflow runs. Module surfaces are loaded lazily through
:class:`~prflow.analysis.parse_cache.ParsedFiles`, so only modules that a
question touches are ever parsed.

Naming follows the interpreter: a directory with ``__init__.py`` is a
package; a directory without one inside a package is a namespace subpackage;
the top of the outermost package sits in a *search directory* (the repo root
for a flat layout, ``src/`` or ``lib/`` otherwise). Lookups never raise: a
name that cannot be followed (a cycle, a compiled extension without source)
comes back as :class:`Unresolved`.
"""

from __future__ import annotations

import ast
import hashlib
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from prflow.analysis.parse_cache import ParsedFiles
from prflow.analysis.py_summary import decode_summary
from prflow.analysis.py_surface import (
    Attribute,
    Binding,
    Class,
    Definition,
    Function,
    Import,
    ModuleSurface,
    Param,
)
from prflow.imports.build import is_skipped
from prflow.source_suffixes import PYTHON_SUFFIXES
from prflow.source_tree import SourceTree

_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)",
    re.MULTILINE,
)
_WORD = re.compile(r"\w+")
_MAX_DEPTH = 40


def is_python_path(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


@dataclass(frozen=True)
class ModuleFile:
    dotted: str
    path: str
    is_package: bool
    search_dir: str

    @property
    def top(self) -> str:
        return self.dotted.split(".", 1)[0]


def _is_special(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def is_private_name(name: str) -> bool:
    return name.startswith("_") and not _is_special(name)


class ModuleIndex:
    """Every Python module of a tree by dotted name and by path."""

    def __init__(self, paths: Iterable[str]) -> None:
        files = sorted(p for p in paths if is_python_path(p) and not is_skipped(p))
        init_dirs = {
            posixpath.dirname(p) for p in files if posixpath.basename(p).startswith("__init__.")
        }
        dirs_with_code = {posixpath.dirname(p) for p in files}
        package_dirs = set(init_dirs)
        # Namespace subpackages: folders of code without __init__ inside a package.
        for directory in sorted(dirs_with_code | _ancestors(dirs_with_code), key=len):
            parent = posixpath.dirname(directory)
            if directory and directory not in package_dirs and parent in package_dirs:
                package_dirs.add(directory)
        self._units: dict[tuple[str, str], list[ModuleFile]] = {}
        self._children: dict[str, list[str]] | None = None
        self.by_path: dict[str, ModuleFile] = {}
        self.by_dotted: dict[str, ModuleFile] = {}
        for path in files:
            module = _module_file(path, package_dirs)
            self.by_path[path] = module
            existing = self.by_dotted.get(module.dotted)
            # One name, two files: the .py beats the .pyi stub, a shallower root beats a deeper.
            if existing is None or _preferred(module, existing):
                self.by_dotted[module.dotted] = module
        self._packages = {m.dotted for m in self.by_dotted.values() if m.is_package}
        for directory in package_dirs - init_dirs:
            dotted = _module_file(f"{directory}/__init__.py", package_dirs).dotted
            self._packages.add(dotted)

    def module(self, dotted: str) -> ModuleFile | None:
        return self.by_dotted.get(dotted)

    def is_package(self, dotted: str) -> bool:
        return dotted in self._packages

    def exists(self, dotted: str) -> bool:
        return dotted in self.by_dotted or dotted in self._packages

    def submodules(self, dotted: str) -> list[str]:
        """Names of the direct submodules of package ``dotted``."""
        if self._children is None:
            children: dict[str, list[str]] = {}
            for name in sorted(set(self.by_dotted) | self._packages):
                parent, _, last = name.rpartition(".")
                if parent:
                    children.setdefault(parent, []).append(last)
            self._children = children
        return self._children.get(dotted, [])

    def same_unit(self, module: ModuleFile) -> list[ModuleFile]:
        """Modules of the top-level package holding ``module`` (itself when standalone)."""
        key = (module.search_dir, module.top)
        if not self._units:
            for m in self.by_dotted.values():
                self._units.setdefault((m.search_dir, m.top), []).append(m)
        return self._units.get(key, [])


def _ancestors(directories: set[str]) -> set[str]:
    found: set[str] = set()
    for directory in directories:
        parent = directory
        while parent:
            parent = posixpath.dirname(parent)
            found.add(parent)
    return found


def _preferred(new: ModuleFile, old: ModuleFile) -> bool:
    if new.search_dir != old.search_dir:
        return len(new.search_dir) < len(old.search_dir)
    return new.path.endswith(".py") and not old.path.endswith(".py")


def _module_file(path: str, package_dirs: set[str]) -> ModuleFile:
    directory, name = posixpath.split(path)
    stem = name.rsplit(".", 1)[0]
    if directory not in package_dirs:
        return ModuleFile(stem, path, False, directory)
    top = directory
    while posixpath.dirname(top) in package_dirs and posixpath.dirname(top) != top:
        top = posixpath.dirname(top)
    search_dir = posixpath.dirname(top)
    relative = directory[len(search_dir) + 1 :] if search_dir else directory
    parts = relative.split("/")
    if stem == "__init__":
        return ModuleFile(".".join(parts), path, True, search_dir)
    return ModuleFile(".".join([*parts, stem]), path, False, search_dir)


# --- what a name is -------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A definition: ``qualname`` inside ``module`` (``Client`` or ``Client.send``)."""

    module: str
    qualname: str
    obj: Definition = field(compare=False, hash=False)

    @property
    def path(self) -> str:
        return f"{self.module}.{self.qualname}"


@dataclass(frozen=True)
class ModuleRef:
    dotted: str

    @property
    def path(self) -> str:
        return self.dotted


@dataclass(frozen=True)
class External:
    """Something outside this tree (standard library, another distribution)."""

    path: str


@dataclass(frozen=True)
class Unresolved:
    """Inside the tree but not followable: a cycle, or a compiled module without source."""

    path: str
    reason: str


Target = Found | ModuleRef | External | Unresolved


@dataclass
class ModuleImports:
    """One module's imports by absolute source: names taken from it, or bound to it whole."""

    named: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Source module to (local name, imported name) pairs."""
    whole: dict[str, list[str]] = field(default_factory=dict)
    """Module to the local names bound to the module itself."""
    stars: set[str] = field(default_factory=set)


@dataclass
class PythonView:
    """One snapshot's Python code, answering lookups with lazily parsed module surfaces."""

    tree: SourceTree
    parsed: ParsedFiles
    unreadable: frozenset[str] = frozenset()
    """Files read as if they could not be parsed (their other side could not be)."""
    index: ModuleIndex = field(init=False)
    _surfaces: dict[str, ModuleSurface | None] = field(default_factory=dict)
    _exports: dict[str, frozenset[str] | None] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)
    _wildcards: dict[str, frozenset[str]] = field(default_factory=dict)
    _import_words: dict[str, frozenset[str]] = field(default_factory=dict)
    _imports: dict[str, ModuleImports] = field(default_factory=dict)
    _importers: dict[str, list[str]] = field(default_factory=dict)
    _definitions: dict[str, dict[int, ast.AST]] = field(default_factory=dict)
    _mros: dict[Found, list[Found]] = field(default_factory=dict)
    _linearizing: set[Found] = field(default_factory=set)
    _members: dict[Found, dict[str, Found]] = field(default_factory=dict)
    _import_word_index: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = ModuleIndex(self.tree.paths())

    # surfaces

    def preload(self, dotted_names: Iterable[str]) -> None:
        """Parse (or fetch from the cache) many modules at once, so workers run in parallel."""
        wanted = [n for n in dotted_names if n not in self._surfaces and self.index.module(n)]
        paths = {n: self.index.by_dotted[n].path for n in wanted}
        readable = [path for path in paths.values() if path not in self.unreadable]
        found = self.parsed.get_many(self.tree, readable)
        for name, path in paths.items():
            data = found.get(path)
            surface = decode_summary(data).surface if data is not None else None
            if surface is not None and surface.error is not None:
                self.parsed.skip(path, surface.error)
                surface = None
            self._surfaces[name] = surface

    def read_paths(self) -> set[str]:
        """Files of the modules whose surface was read so far."""
        return {
            self.index.by_dotted[name].path
            for name, surface in self._surfaces.items()
            if surface is not None and name in self.index.by_dotted
        }

    def surface(self, dotted: str) -> ModuleSurface | None:
        if dotted not in self._surfaces:
            self.preload([dotted])
            self._surfaces.setdefault(dotted, None)
        return self._surfaces[dotted]

    def import_words(self, path: str) -> frozenset[str]:
        """Every word in the file's import statements: a cheap filter before parsing it."""
        if path not in self._import_words:
            text = self.text(path)
            words: set[str] = set()
            if "import" in text:
                for match in _IMPORT_LINE.finditer(text):
                    words.update(_WORD.findall(match.group(0)))
            self._import_words[path] = frozenset(words)
        return self._import_words[path]

    def importers(self, module: str) -> list[str]:
        """Modules of the same package that import ``module`` or names from it (parsed)."""
        if module not in self._importers:
            home = self.index.module(module)
            word = module.rsplit(".", 1)[-1]
            mentioning = self._words_in_imports(home).get(word, ()) if home is not None else ()
            candidates = [dotted for dotted in mentioning if dotted != module]
            self.preload(candidates)
            self._importers[module] = [
                c
                for c in candidates
                if module in (imports := self.imports_of(c)).named
                or module in imports.whole
                or module in imports.stars
            ]
        return self._importers[module]

    def _words_in_imports(self, home: ModuleFile) -> dict[str, list[str]]:
        """Word to the modules of ``home``'s package whose import lines hold it.

        Built once per package, so finding a module's importers is a lookup rather
        than a scan of every module of a large package.
        """
        key = (home.search_dir, home.top)
        index = self._import_word_index.get(key)
        if index is None:
            index = {}
            for member in self.index.same_unit(home):
                for word in self.import_words(member.path):
                    index.setdefault(word, []).append(member.dotted)
            self._import_word_index[key] = index
        return index

    def imports_of(self, module: str) -> ModuleImports:
        """What ``module`` imports, keyed by the absolute module it comes from."""
        if module not in self._imports:
            found = ModuleImports()
            surface = self.surface(module)
            for name, binding in surface.bindings.items() if surface is not None else ():
                if not isinstance(binding, Import):
                    continue
                source = self.absolute(module, binding.module)
                if binding.target is None:
                    found.whole.setdefault(source, []).append(name)
                    continue
                found.named.setdefault(source, []).append((name, binding.target))
                found.whole.setdefault(f"{source}.{binding.target}", []).append(name)
            for star in surface.star_imports if surface is not None else ():
                found.stars.add(self.absolute(module, star))
            self._imports[module] = found
        return self._imports[module]

    def definition_fingerprint(self, path: str, line: int) -> str:
        """A hash of the ``def``/``class`` at ``line`` without its name ('' if there is none).

        The file is parsed once, however many of its definitions are compared.
        """
        if path not in self._definitions:
            found: dict[int, ast.AST] = {}
            try:
                tree: ast.AST | None = ast.parse(self.text(path))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    found.setdefault(node.lineno, node)
            self._definitions[path] = found
        definition = self._definitions[path].get(line)
        if not isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return ""
        name, definition.name = definition.name, "§"
        dumped = ast.dump(definition, annotate_fields=False, include_attributes=False)
        definition.name = name
        return hashlib.blake2b(dumped.encode(), digest_size=16).hexdigest()

    def text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = self.tree.read_text(path) or ""
        return self._texts[path]

    # names

    def absolute(self, module: str, spec: str) -> str:
        """The absolute module an import in ``module`` names (``..x`` from ``a.b.c`` = ``a.x``)."""
        level = len(spec) - len(spec.lstrip("."))
        if level == 0:
            return spec
        package = module if self.index.is_package(module) else module.rpartition(".")[0]
        parts = package.split(".") if package else []
        if level > 1:
            parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
        rest = spec[level:]
        return ".".join([*parts, rest] if rest else parts)

    def lookup(self, module: str, name: str) -> Target | None:
        """What ``module.name`` is; None when the module has no such name."""
        return self._lookup(module, name, set())

    def _lookup(self, module: str, name: str, seen: set[tuple[str, str]]) -> Target | None:
        if (module, name) in seen or len(seen) > _MAX_DEPTH:
            return Unresolved(f"{module}.{name}", "import cycle")
        seen = seen | {(module, name)}
        surface = self.surface(module)
        if surface is None and self.index.module(module) is not None:
            return Unresolved(f"{module}.{name}", f"`{module}` could not be read")
        if surface is not None:
            binding = surface.bindings.get(name)
            if binding is not None:
                return self._follow(module, binding, seen)
            for star in reversed(surface.star_imports):
                source = self.absolute(module, star)
                if name in self.wildcard_names(source):
                    return self._lookup(source, name, seen)
        submodule = f"{module}.{name}"
        if self.index.exists(submodule):
            return ModuleRef(submodule)
        return None

    def _follow(self, module: str, binding: Binding, seen: set[tuple[str, str]]) -> Target | None:
        if not isinstance(binding, Import):
            return Found(module, binding.name, binding)
        found = self._follow_import(module, binding, seen)
        if isinstance(found, Unresolved) and binding.fallback is not None:
            return self._follow(module, binding.fallback, seen)
        return found

    def _follow_import(
        self, module: str, binding: Import, seen: set[tuple[str, str]]
    ) -> Target | None:
        source = self.absolute(module, binding.module)
        if binding.target is None:
            return self._module_target(source, module)
        submodule = f"{source}.{binding.target}"
        if self.index.exists(submodule) and self._binds_submodule(source, binding.target):
            return ModuleRef(submodule)
        if not self.index.exists(source):
            return self._missing(f"{source}.{binding.target}", source, module)
        found = self._lookup(source, binding.target, seen)
        if found is None:
            return Unresolved(f"{source}.{binding.target}", f"`{source}` has no `{binding.target}`")
        return found

    def _binds_submodule(self, package: str, name: str) -> bool:
        """``from package import name`` gets the submodule unless the package binds ``name``."""
        surface = self.surface(package)
        binding = surface.bindings.get(name) if surface is not None else None
        if binding is None:
            return True
        return isinstance(binding, Import) and (
            self.absolute(package, binding.module) in (package, f"{package}.{name}")
        )

    def _module_target(self, dotted: str, importer: str) -> Target:
        if self.index.exists(dotted):
            return ModuleRef(dotted)
        return self._missing(dotted, dotted, importer)

    def _missing(self, path: str, module: str, importer: str) -> Target:
        """A module not in the tree: another distribution, or this package's compiled code."""
        if module.split(".", 1)[0] == importer.split(".", 1)[0] and self.index.exists(
            module.split(".", 1)[0]
        ):
            return Unresolved(path, f"no source for `{module}` (compiled extension?)")
        return External(path)

    def wildcard_names(self, module: str) -> frozenset[str]:
        """Names ``from module import *`` binds."""
        if module not in self._wildcards:
            self._wildcards[module] = frozenset()  # guards cycles while computing
            self._wildcards[module] = self._compute_wildcard_names(module)
        return self._wildcards[module]

    def _compute_wildcard_names(self, module: str) -> frozenset[str]:
        exports = self.exports(module)
        if exports is not None:
            return exports
        surface = self.surface(module)
        if surface is None:
            return frozenset()
        # griffe's rule: what only ``if TYPE_CHECKING:`` imports is absent at run time
        names = {
            n for n in surface.bindings if not n.startswith("_") and n not in surface.type_checking
        }
        for star in surface.star_imports:
            names |= self.wildcard_names(self.absolute(module, star))
        return frozenset(names)

    def star_imported(self, module: str) -> frozenset[str]:
        """Names ``module`` binds through its own ``from x import *`` lines."""
        surface = self.surface(module)
        if surface is None:
            return frozenset()
        names: set[str] = set()
        for star in surface.star_imports:
            names |= self.wildcard_names(self.absolute(module, star))
        return frozenset(names)

    def exports(self, module: str) -> frozenset[str] | None:
        """``__all__`` of ``module`` with references to other ``__all__`` lists expanded."""
        if module in self._exports:
            return self._exports[module]
        self._exports[module] = None  # guards cycles while computing
        surface = self.surface(module)
        result: frozenset[str] | None = None
        if surface is not None and surface.exports is not None:
            names: set[str] = set()
            for item in surface.exports:
                if item.startswith("@"):
                    target = self._attribute_chain(module, item[1:])
                    if isinstance(target, ModuleRef):
                        names |= self.exports(target.dotted) or frozenset()
                else:
                    names.add(item)
            result = frozenset(names)
        self._exports[module] = result
        return result

    def resolve_dotted(self, module: str, dotted: str) -> Target | None:
        """What ``a.b.c`` written in ``module`` names."""
        return self._attribute_chain(module, dotted)

    def _attribute_chain(self, module: str, dotted: str) -> Target | None:
        first, *rest = dotted.split(".")
        target = self.lookup(module, first)
        for part in rest:
            target = self.member(target, part)
        return target

    def member(self, target: Target | None, name: str) -> Target | None:
        """``target.name`` for a module or class target."""
        if isinstance(target, ModuleRef):
            return self.lookup(target.dotted, name)
        if isinstance(target, Found) and isinstance(target.obj, Class):
            members = self.class_members(target)
            return members.get(name)
        if isinstance(target, External):
            return External(f"{target.path}.{name}")
        if isinstance(target, Unresolved):
            return Unresolved(f"{target.path}.{name}", target.reason)
        return None

    # public API

    def is_reachable(self, dotted: str) -> bool:
        """True when ``dotted`` can be imported by its own name without a private part."""
        return self.index.exists(dotted) and not any(
            is_private_name(part) for part in dotted.split(".")
        )

    def is_importable(self, module: str, name: str) -> bool:
        """``from module import name`` still works: the name is public or still bound there.

        A name a new ``__all__`` leaves out (or one dropped from it) that the module still
        binds, by definition or import, is no removed object to griffe (2.4, ``diff.py``,
        ``_member_incompatibilities``: the old public member is looked up among all the new
        module's members, public or not), and a caller's import of it still works.
        """
        if self.is_public(module, name):
            return True
        surface = self.surface(module)
        return surface is not None and name in surface.bindings

    def is_public(self, module: str, name: str) -> bool:
        """griffe's rule, an API checker's: a non-empty ``__all__`` decides, else underscores,
        and a name the module imports is private, in a package ``__init__`` as anywhere.

        So ``from .core import helper`` in an ``__init__`` without ``__all__`` publishes
        nothing: ``helper``'s public path is ``pkg.core.helper``. Names bound by
        ``from x import *`` and submodules not imported by name are public.
        """
        exports = self.exports(module)
        if exports:
            return name in exports
        if is_private_name(name):
            return False
        surface = self.surface(module)
        binding = surface.bindings.get(name) if surface is not None else None
        if binding is None:
            # Submodules are public by name; ``from .x import *`` re-exports (griffe agrees).
            return self.index.exists(f"{module}.{name}") or name in self.star_imported(module)
        if isinstance(binding, Import):
            return False
        return name not in surface.imported if surface is not None else True

    def public_names(self, module: str) -> Iterator[str]:
        """Every name ``module`` exposes publicly, bound or star-imported or a submodule."""
        surface = self.surface(module)
        if surface is None:
            return
        names: dict[str, None] = dict.fromkeys(surface.bindings)
        names.update(dict.fromkeys(sorted(self.star_imported(module))))
        for submodule in self.index.submodules(module):
            names.setdefault(submodule, None)
        for name in names:
            if self.is_public(module, name):
                yield name

    # classes

    def bases(self, cls: Found) -> list[Target]:
        """What each base expression of ``cls`` names (``Generic[T]`` counts as ``Generic``)."""
        assert isinstance(cls.obj, Class)
        found: list[Target] = []
        for text in cls.obj.bases:
            dotted = re.sub(r"\[.*$", "", text.strip())
            if not re.fullmatch(r"[\w.]+", dotted):
                continue
            target = self._attribute_chain(cls.module, dotted)
            found.append(target if target is not None else External(dotted))
        return found

    def mro(self, cls: Found) -> list[Found]:
        """The class and its resolvable ancestors in method resolution order.

        Memoised per class: a large package compares thousands of classes that share
        their ancestors. A base that is still being linearized (an inheritance cycle,
        which Python itself refuses) counts as the class alone.
        """
        cached = self._mros.get(cls)
        if cached is not None:
            return cached
        if cls in self._linearizing:
            return [cls]
        self._linearizing.add(cls)
        try:
            linearized = [
                self.mro(base)
                for base in self.bases(cls)
                if isinstance(base, Found) and isinstance(base.obj, Class) and base != cls
            ]
        finally:
            self._linearizing.discard(cls)
        order = [cls, *_c3_merge([*linearized, [line[0] for line in linearized]])]
        self._mros[cls] = order
        return order

    def class_members(self, cls: Found) -> dict[str, Found]:
        """Own and inherited members, each at the class that defines it (griffe's all_members)."""
        cached = self._members.get(cls)
        if cached is not None:
            return cached
        members: dict[str, Found] = {}
        for owner in self.mro(cls):
            assert isinstance(owner.obj, Class)
            for name, member in owner.obj.members.items():
                seen = self._fields_init(owner) if _is_generated(member) else member
                members.setdefault(name, Found(owner.module, f"{owner.qualname}.{name}", seen))
        self._members[cls] = members
        return members

    def _fields_init(self, cls: Found) -> Function:
        """A dataclass's generated ``__init__`` with the fields its ancestors contribute.

        griffe's rule (its dataclasses extension, ``_set_dataclass_init``): the fields of every
        ancestor that generates its ``__init__`` too, from the farthest in the MRO, then the
        class's own; a field declared again keeps its first place and takes the last
        declaration; keyword-only parameters go last."""
        own = cls.obj.members["__init__"] if isinstance(cls.obj, Class) else None
        assert isinstance(own, Function)
        fields: dict[str, Param] = {}
        for owner in reversed(self.mro(cls)):
            init = owner.obj.members.get("__init__") if isinstance(owner.obj, Class) else None
            if isinstance(init, Function) and _is_generated(init):
                for param in init.params[1:]:
                    fields[param.name] = param
        ordered = sorted(fields.values(), key=lambda p: p.kind == "keyword_only")
        return msgspec.structs.replace(own, params=(*own.params[:1], *ordered))


def _is_generated(member: Definition) -> bool:
    """A dataclass-like ``__init__`` made from fields (``py_surface.generated_init``)."""
    return isinstance(member, Function) and member.decorators == ("generated",)


def _c3_merge(sequences: list[list[Found]]) -> list[Found]:
    """C3 linearization; on an inconsistent hierarchy, depth-first order without repeats."""
    pending = [list(s) for s in sequences if s]
    merged: list[Found] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            rest = [item for s in pending for item in s]
            return merged + [item for item in dict.fromkeys(rest) if item not in merged]
        merged.append(head)
        pending = [[item for item in s if item != head] for s in pending]
        pending = [s for s in pending if s]
    return merged


def kind_of(obj: Definition) -> str:
    """The kind callers see: a property reads like an attribute."""
    if isinstance(obj, Function):
        return "attribute" if obj.is_property else "function"
    if isinstance(obj, Class):
        return "class"
    assert isinstance(obj, Attribute)
    return "attribute"
