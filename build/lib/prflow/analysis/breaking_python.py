"""Breaking changes in Python's public API, found by diffing griffe's view of base and head.

griffe reads the code statically (nothing is imported or executed) and knows
which names are public: ``__all__`` wins, then underscores, and imported names
are private. We add one convention griffe leaves to extensions: a package
``__init__`` without ``__all__`` re-exports what it imports from its own
submodules, since that is how most packages publish their API.

griffe reports removals and parameter changes; return and attribute types it
does not compare yet, so that pass is ours. Removed symbols are then paired
into renames (same module, same shape) and modules moved by git renames are
followed to their new dotted path.
"""

from __future__ import annotations

import ast
import re
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import griffe

from prflow.analysis.findings import SEVERITY_BY_KIND, BreakingChange, BreakingKind
from prflow.analysis.renames import RenameCandidate, pair_renames
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import SourceTree

PYTHON_SUFFIXES = (".py", ".pyi")

_LOOKUP_ERRORS = (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError)

# griffe objects are untyped for mypy (ignore_missing_imports); name them for readers.
GriffeObject = Any


def is_python_path(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


def find_python_breaking_changes(
    changed: list[ChangedFile], base: SourceTree, head: SourceTree
) -> list[BreakingChange]:
    """Breaking changes to public symbols defined or re-exported by the changed Python files."""
    base_paths: set[str] = set()
    head_paths: set[str] = set()
    moved: dict[str, str] = {}
    for item in changed:
        old_path = item.old_path or item.path
        if item.status is FileStatus.added or not is_python_path(old_path):
            continue
        base_paths.add(old_path)
        if item.status is not FileStatus.deleted and is_python_path(item.path):
            head_paths.add(item.path)
            if item.status is FileStatus.renamed and old_path != item.path:
                moved[old_path] = item.path
    if not base_paths:
        return []
    unparseable = {p for p in base_paths if not _parses(base, p)}
    unparseable |= {p for p in head_paths if not _parses(head, p)}
    with ExitStack() as stack:
        old_side = _Side(base, _materialize(base, stack))
        new_side = _Side(head, _materialize(head, stack))
        comparer = _Comparer(old_side, new_side, moved, base_paths | head_paths, unparseable)
        units = {_unit_of(path, old_side.present) for path in base_paths - unparseable}
        for unit in sorted(units):
            comparer.compare_unit(unit)
        return comparer.results()


# --- where code lives -------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class _Unit:
    """What griffe loads: a top-level module or package found in ``search_dir``."""

    search_dir: str
    top: str


def _unit_of(path: str, present: set[str]) -> _Unit:
    """The top-level package holding ``path`` (or the module itself outside packages)."""
    directories = path.split("/")[:-1]
    start = len(directories)
    while start > 0 and _is_package("/".join(directories[:start]), present):
        start -= 1
    if start < len(directories):
        return _Unit("/".join(directories[:start]), directories[start])
    return _Unit("/".join(directories), _module_stem(path))


def _is_package(directory: str, present: set[str]) -> bool:
    return f"{directory}/__init__.py" in present or f"{directory}/__init__.pyi" in present


def _module_stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0]


def _dotted_module(path: str, unit: _Unit) -> str:
    """The import path of the module stored at ``path`` inside ``unit``."""
    relative = path[len(unit.search_dir) + 1 :] if unit.search_dir else path
    parts = relative.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _parses(tree: SourceTree, path: str) -> bool:
    text = tree.read_text(path)
    if text is None:
        return True
    try:
        ast.parse(text, filename=path)
    except (SyntaxError, ValueError):
        return False
    return True


def _materialize(tree: SourceTree, stack: ExitStack) -> Path:
    """A directory griffe can read: the tree's own, or a temporary copy of its Python files."""
    if tree.root is not None:
        return tree.root.resolve()
    target = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="prflow-py-"))).resolve()
    for path in tree.paths():
        if not is_python_path(path):
            continue
        text = tree.read_text(path)
        if text is None:
            continue
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(text, encoding="utf-8")
    return target


class _Side:
    """One snapshot as griffe sees it, loading each unit at most once."""

    def __init__(self, tree: SourceTree, root: Path) -> None:
        self.tree = tree
        self.root = root
        self.present = set(tree.paths())
        self._loaded: dict[_Unit, GriffeObject | None] = {}

    def load(self, unit: _Unit) -> GriffeObject | None:
        if unit not in self._loaded:
            self._loaded[unit] = self._load(unit)
        return self._loaded[unit]

    def _load(self, unit: _Unit) -> GriffeObject | None:
        try:
            module = griffe.load(
                unit.top,
                search_paths=[self.root / unit.search_dir],
                modules_collection=griffe.ModulesCollection(),
                lines_collection=griffe.LinesCollection(),
                allow_inspection=False,
                resolve_aliases=False,
            )
        except Exception:  # griffe raises many kinds on unreadable code; skip the unit
            return None
        _publish_package_reexports(module)
        return module

    def module_at(self, path: str) -> GriffeObject | None:
        """The loaded module stored at repo path ``path``, if it exists on this side."""
        if path not in self.present:
            return None
        unit = _unit_of(path, self.present)
        root = self.load(unit)
        if root is None:
            return None
        dotted = _dotted_module(path, unit)
        return _lookup(root, dotted[len(unit.top) + 1 :]) if dotted != unit.top else root

    def file_of(self, obj: GriffeObject) -> str | None:
        """Repo path of the file defining ``obj`` (the importing module for aliases)."""
        holder = obj.parent if obj.is_alias else obj
        filepath = holder.filepath
        if not isinstance(filepath, Path):
            return None
        try:
            return filepath.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None


def _publish_package_reexports(module: GriffeObject) -> None:
    """Mark names a package ``__init__`` imports from its own submodules as public."""
    for member in list(module.members.values()):
        if member.is_alias:
            continue
        if member.is_module:
            _publish_package_reexports(member)
    if not module.is_init_module or module.exports is not None:
        return
    prefix = module.path + "."
    for name, member in module.members.items():
        if member.is_alias and not name.startswith("_") and member.target_path.startswith(prefix):
            member.public = True


def _lookup(root: GriffeObject, relative: str) -> GriffeObject | None:
    if not relative:
        return root
    try:
        return root[relative]
    except _LOOKUP_ERRORS:
        return None


# --- comparing --------------------------------------------------------------------------


@dataclass
class _Finding:
    file: str
    symbol: str
    kind: BreakingKind
    details: list[str]
    before: str | None
    after: str | None
    line: int | None
    new_name: str | None = None


@dataclass
class _Removal:
    obj: GriffeObject
    unit: _Unit
    file: str
    symbol: str


@dataclass
class _Comparer:
    """Collects findings across units, then resolves removals into renames."""

    old: _Side
    new: _Side
    moved: dict[str, str]
    changed_paths: set[str]
    unparseable: set[str]
    _findings: dict[tuple[str, str, BreakingKind], _Finding] = field(default_factory=dict)
    _removals: list[_Removal] = field(default_factory=list)

    def compare_unit(self, unit: _Unit) -> None:
        old_root = self.old.load(unit)
        if old_root is None:
            return
        new_root = self.new.load(unit)
        if new_root is None:
            self._module_removed(old_root, unit)
            return
        for breakage in griffe.find_breaking_changes(old_root, new_root):
            self._on_breakage(breakage, old_root, unit)
        self._compare_members(old_root, new_root, unit)

    def results(self) -> list[BreakingChange]:
        self._resolve_removals()
        changes = [
            BreakingChange(
                file=f.file,
                symbol=f.symbol,
                kind=f.kind,
                severity=SEVERITY_BY_KIND[f.kind],
                language="python",
                detail="; ".join(dict.fromkeys(f.details)),
                before=f.before,
                after=f.after,
                new_name=f.new_name,
                line=f.line,
            )
            for f in self._findings.values()
        ]
        return sorted(changes, key=lambda c: (c.file, c.line or 0, c.symbol, c.kind))

    # griffe's breakages

    def _on_breakage(self, breakage: Any, old_root: GriffeObject, unit: _Unit) -> None:
        if breakage.kind is griffe.BreakageKind.OBJECT_REMOVED:
            obj = breakage.obj
            if obj.is_module and not obj.is_alias:
                self._module_removed(obj, unit)
            else:
                self._removed(obj, unit)
            return
        new_obj = breakage.obj
        old_obj = _lookup(old_root, new_obj.path[len(old_root.path) + 1 :])
        if old_obj is None:
            return
        mapped = _map_breakage(breakage)
        if mapped is None:
            return
        breaking_kind, detail = mapped
        self._add(new_obj, breaking_kind, detail, before=old_obj, after=new_obj)

    def _compare_members(self, old_obj: GriffeObject, new_obj: GriffeObject, unit: _Unit) -> None:
        """What griffe leaves out: names that went private, return and attribute types."""
        for name, old_member in _public_members(old_obj).items():
            new_member = new_obj.members.get(name)
            if new_member is None:
                continue  # griffe reports the removal
            if not _is_public(new_member):
                self._removed(old_member, unit)
                continue
            if old_member.is_alias or new_member.is_alias or old_member.kind != new_member.kind:
                continue
            if old_member.is_function:
                old_type, new_type = old_member.returns, new_member.returns
                what = "return type"
            elif old_member.is_attribute:
                old_type, new_type = old_member.annotation, new_member.annotation
                what = "type"
            elif old_member.kind.value == "type alias":
                old_type, new_type = old_member.value, new_member.value
                what = "aliased type"
            else:
                self._compare_members(old_member, new_member, unit)
                continue
            if old_type is None or new_type is None or str(old_type) == str(new_type):
                continue
            detail = f"{what} changed from {old_type} to {new_type}"
            self._add(new_member, BreakingKind.changed_type, detail, old_member, new_member)

    def _add(
        self,
        new_obj: GriffeObject,
        kind: BreakingKind,
        detail: str,
        before: GriffeObject,
        after: GriffeObject,
    ) -> None:
        file = self.new.file_of(new_obj)
        if not self._reportable(file) or file is None:
            return
        symbol = _symbol_of(new_obj)
        key = (file, symbol, kind)
        if key in self._findings:
            self._findings[key].details.append(detail)
            return
        self._findings[key] = _Finding(
            file=file,
            symbol=symbol,
            kind=kind,
            details=[detail],
            before=render(before),
            after=render(after),
            line=_line_of(new_obj),
        )

    def _reportable(self, file: str | None) -> bool:
        return file is not None and file in self.changed_paths and file not in self.unparseable

    # removals and renames

    def _module_removed(self, module: GriffeObject, unit: _Unit) -> None:
        for member in _public_members(module).values():
            if member.is_module and not member.is_alias:
                self._module_removed(member, unit)
            else:
                self._removed(member, unit)

    def _removed(self, obj: GriffeObject, unit: _Unit) -> None:
        file = self.old.file_of(obj)
        if self._reportable(file) and file is not None:
            self._removals.append(_Removal(obj, unit, file, _symbol_of(obj)))

    def _resolve_removals(self) -> None:
        by_parent: dict[tuple[_Unit, str], list[_Removal]] = {}
        for removal in self._removals:
            key = (removal.unit, removal.obj.parent.path)
            by_parent.setdefault(key, []).append(removal)
        for removals in by_parent.values():
            self._resolve_siblings(removals)

    def _resolve_siblings(self, removals: list[_Removal]) -> None:
        """Removals sharing one parent: renamed within it, moved with it, or gone."""
        old_parent = removals[0].obj.parent
        moved_to = self._moved_module(old_parent, removals[0].file)
        new_parent = (
            moved_to if moved_to is not None else self._counterpart(old_parent, removals[0].unit)
        )
        added: dict[str, GriffeObject] = {}
        if new_parent is not None:
            added = {
                name: member
                for name, member in _public_members(new_parent).items()
                if moved_to is not None or name not in old_parent.members
            }
        pending: list[_Removal] = []
        for removal in removals:
            twin = added.pop(removal.obj.name, None) if moved_to is not None else None
            if twin is None:
                pending.append(removal)
            else:
                self._renamed(removal, twin, new_name=twin.path)
        candidates_old = [_candidate(r.obj, r) for r in pending]
        candidates_new = [_candidate(obj, obj) for obj in added.values()]
        paired: set[int] = set()
        for old, new in pair_renames(candidates_old, candidates_new):
            paired.add(id(old.item))
            new_name = new.item.path if moved_to is not None else _symbol_of(new.item)
            self._renamed(old.item, new.item, new_name=new_name)
        for removal in pending:
            if id(removal) not in paired:
                self._record_removed(removal)

    def _moved_module(self, parent: GriffeObject, file: str) -> GriffeObject | None:
        """The head module a git rename moved ``parent`` to, when ``parent`` is that module."""
        if not parent.is_module or file not in self.moved:
            return None
        return self.new.module_at(self.moved[file])

    def _counterpart(self, old_obj: GriffeObject, unit: _Unit) -> GriffeObject | None:
        """The object at the same dotted path in the head version of ``unit``."""
        new_root = self.new.load(unit)
        if new_root is None:
            return None
        return _lookup(new_root, old_obj.path[len(unit.top) + 1 :])

    def _renamed(self, removal: _Removal, new_obj: GriffeObject, new_name: str) -> None:
        old_shape, new_shape = _shape(removal.obj), _shape(new_obj)
        verb = "moved with its module" if new_name.endswith(f".{removal.symbol}") else "renamed"
        detail = f"{_describe(removal.obj)} `{removal.symbol}` was {verb} to `{new_name}`"
        if old_shape != new_shape:
            detail += " and its signature changed"
        self._findings[(removal.file, removal.symbol, BreakingKind.renamed_export)] = _Finding(
            file=removal.file,
            symbol=removal.symbol,
            kind=BreakingKind.renamed_export,
            details=[detail],
            before=render(removal.obj),
            after=render(new_obj),
            line=_line_of(new_obj),
            new_name=new_name,
        )

    def _record_removed(self, removal: _Removal) -> None:
        obj = removal.obj
        if obj.is_alias:
            detail = f"re-export `{removal.symbol}` (of {obj.target_path}) was removed"
        else:
            detail = f"{_describe(obj)} `{removal.symbol}` was removed"
        self._findings[(removal.file, removal.symbol, BreakingKind.removed_export)] = _Finding(
            file=removal.file,
            symbol=removal.symbol,
            kind=BreakingKind.removed_export,
            details=[detail],
            before=render(obj),
            after=None,
            line=_line_of(obj),
        )


def _public_members(obj: GriffeObject) -> dict[str, GriffeObject]:
    return {name: member for name, member in obj.members.items() if _is_public(member)}


def _is_public(obj: GriffeObject) -> bool:
    try:
        return bool(obj.is_public)
    except _LOOKUP_ERRORS:
        return False


def _map_breakage(breakage: Any) -> tuple[BreakingKind, str] | None:
    """griffe's breakage as our kind plus a one-line reason."""
    kinds = griffe.BreakageKind
    old, new = breakage.old_value, breakage.new_value
    if breakage.kind is kinds.PARAMETER_REMOVED:
        return BreakingKind.changed_signature, f"parameter `{old.name}` was removed"
    if breakage.kind is kinds.PARAMETER_MOVED:
        return BreakingKind.changed_signature, f"parameter `{old.name}` moved ({breakage.details})"
    if breakage.kind is kinds.PARAMETER_CHANGED_KIND:
        return (
            BreakingKind.changed_signature,
            f"parameter `{old.name}` changed from {old.kind.value} to {new.kind.value}",
        )
    if breakage.kind is kinds.PARAMETER_CHANGED_DEFAULT:
        return (
            BreakingKind.changed_signature,
            f"default of parameter `{old.name}` changed from {old.default} to {new.default}",
        )
    if breakage.kind is kinds.PARAMETER_CHANGED_REQUIRED:
        return BreakingKind.changed_signature, f"parameter `{old.name}` became required"
    if breakage.kind is kinds.PARAMETER_ADDED_REQUIRED:
        return BreakingKind.changed_signature, f"required parameter `{new.name}` was added"
    if breakage.kind is kinds.OBJECT_CHANGED_KIND:
        return BreakingKind.changed_signature, f"changed from {old.value} to {new.value}"
    if breakage.kind is kinds.RETURN_CHANGED_TYPE:
        return BreakingKind.changed_type, f"return type changed from {old} to {new}"
    if breakage.kind is kinds.ATTRIBUTE_CHANGED_TYPE:
        return BreakingKind.changed_type, f"type changed from {old} to {new}"
    if breakage.kind is kinds.CLASS_REMOVED_BASE:
        removed = sorted({str(b) for b in old} - {str(b) for b in new})
        return BreakingKind.changed_type, f"base class removed: {', '.join(removed)}"
    return None


# --- describing objects -----------------------------------------------------------------


def _module_of(obj: GriffeObject) -> GriffeObject:
    node = obj.parent if obj.is_alias else obj
    while not node.is_module:
        node = node.parent
    return node


def _symbol_of(obj: GriffeObject) -> str:
    """Name relative to its module: ``helper``, ``Client.fetch``; a module's own dotted path."""
    if obj.is_module and not obj.is_alias:
        return str(obj.path)
    return str(obj.path[len(_module_of(obj).path) + 1 :])


def _line_of(obj: GriffeObject) -> int | None:
    line = obj.alias_lineno if obj.is_alias else obj.lineno
    return int(line) if line else None


def _describe(obj: GriffeObject) -> str:
    if obj.is_alias:
        return "re-export"
    if obj.is_function and obj.parent is not None and obj.parent.is_class:
        return "method"
    return str(obj.kind.value)


def render(obj: GriffeObject) -> str:
    """A readable one-line declaration, e.g. ``Client.fetch(self, url: str) -> bytes``."""
    if obj.is_alias:
        return f"{_symbol_of(obj)} (re-export of {obj.target_path})"
    name = _symbol_of(obj)
    if obj.is_module:
        return f"module {name}"
    if obj.is_function:
        prefix = "async " if "async" in obj.labels else ""
        returns = f" -> {obj.returns}" if obj.returns is not None else ""
        return f"{prefix}{name}({render_parameters(obj.parameters)}){returns}"
    if obj.is_class:
        bases = ", ".join(str(base) for base in obj.bases)
        return f"class {name}({bases})" if bases else f"class {name}"
    if obj.is_attribute:
        annotation = f": {obj.annotation}" if obj.annotation is not None else ""
        value = f" = {obj.value}" if obj.value is not None else ""
        return f"{name}{annotation}{value}"
    aliased = getattr(obj, "value", None)
    return f"type {name} = {aliased}" if aliased is not None else name


def render_parameters(parameters: Any) -> str:
    """Parameters as written, with the ``/`` and ``*`` markers Python needs."""
    kinds = griffe.ParameterKind
    rendered: list[str] = []
    params = list(parameters)
    for index, param in enumerate(params):
        previous = params[index - 1].kind if index else None
        if previous is kinds.positional_only and param.kind is not kinds.positional_only:
            rendered.append("/")
        if param.kind is kinds.keyword_only and previous not in (
            kinds.keyword_only,
            kinds.var_positional,
        ):
            rendered.append("*")
        star = {kinds.var_positional: "*", kinds.var_keyword: "**"}.get(param.kind, "")
        text = f"{star}{param.name}"
        if param.annotation is not None:
            text += f": {param.annotation}"
        if param.default is not None and not star:
            text += f" = {param.default}" if param.annotation is not None else f"={param.default}"
        rendered.append(text)
    if params and params[-1].kind is kinds.positional_only:
        rendered.append("/")
    return ", ".join(rendered)


def _shape(obj: GriffeObject) -> str:
    """The declaration without its name, to compare two symbols' signatures."""
    text = render(obj)
    return re.sub(rf"(?<![\w.]){re.escape(_symbol_of(obj))}(?!\w)", "§", text, count=1)


def _normalized_body(obj: GriffeObject) -> str:
    if obj.is_alias:
        return f"alias:{obj.target_path}"
    try:
        source = obj.source
    except Exception:  # source unavailable (e.g. stubs without lines)
        return ""
    source = re.sub(rf"(?<!\w){re.escape(obj.name)}(?!\w)", "§", source)
    return " ".join(source.split())


def _candidate(obj: GriffeObject, item: Any) -> RenameCandidate[Any]:
    kind = "alias" if obj.is_alias else str(obj.kind.value)
    shape = _shape(obj)
    generic = obj.is_attribute or obj.is_alias or re.fullmatch(r"§\((self|cls)?\)", shape)
    return RenameCandidate(
        name=str(obj.name),
        exact_key=(kind, shape, _normalized_body(obj)),
        loose_key=None if generic else (kind, shape),
        item=item,
    )
