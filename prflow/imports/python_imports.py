"""Python imports, read with :mod:`ast` and resolved to files of the tree.

Resolution follows the interpreter's rules closely enough for impact
analysis: absolute imports are searched in the repository's source roots
(the repo root, ``src/``, and the parent directory of every top-level
package), relative imports from the importer's package. What does not resolve
to a file of the tree (standard library, third-party packages) is dropped.
"""

from __future__ import annotations

import ast
import bisect
import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import msgspec

from prflow.imports.graph import ImportEdge
from prflow.source_suffixes import PYTHON_SUFFIXES

_INIT_NAMES = ("__init__.py", "__init__.pyi")


def is_python_file(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


def _join(*parts: str) -> str:
    """The non-empty parts joined; ``""`` when none is left (``from . import x`` in a file at
    the repository's root has no folder to start from)."""
    kept = [part for part in parts if part]
    return posixpath.join(*kept) if kept else ""


@dataclass(frozen=True)
class PythonModuleIndex:
    """The Python files of a tree and the source roots absolute imports search."""

    files: frozenset[str]
    roots: tuple[str, ...]
    package_dirs: frozenset[str] = field(default_factory=frozenset)
    _resolved: dict[str, str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def from_paths(cls, paths: Sequence[str]) -> PythonModuleIndex:
        files = frozenset(path for path in paths if is_python_file(path))
        package_dirs = frozenset(
            posixpath.dirname(path) for path in files if posixpath.basename(path) in _INIT_NAMES
        )
        roots: list[str] = [""]
        if any(path.startswith("src/") for path in files):
            roots.append("src")
        for package in sorted(package_dirs):
            parent = posixpath.dirname(package)
            if parent not in package_dirs and parent not in roots:
                roots.append(parent)
        return cls(files=files, roots=tuple(roots), package_dirs=package_dirs)

    def module_file(self, base: str) -> str | None:
        """The file implementing the module at ``base`` (a path without suffix)."""
        if base not in self._resolved:
            self._resolved[base] = self._find_module_file(base)
        return self._resolved[base]

    def _find_module_file(self, base: str) -> str | None:
        if not base or base.startswith(".."):
            return None
        for candidate in (
            base + ".py",
            _join(base, "__init__.py"),
            base + ".pyi",
            _join(base, "__init__.pyi"),
        ):
            if candidate in self.files:
                return candidate
        return None

    def search_dirs(self, importer: str) -> list[str]:
        """Where absolute imports of ``importer`` are looked up, in priority order."""
        here = posixpath.dirname(importer)
        if here in self.package_dirs or here in self.roots:
            return list(self.roots)
        return [*self.roots, here]


IMPORTS_VERSION = "py-imports-1"
"""Bump when :class:`PythonImports` changes shape, so cached records are read again."""


class ModuleImport(msgspec.Struct, frozen=True, array_like=True, tag="m"):
    """``import a.b.c`` (each alias), or ``importlib.import_module("a.b")`` with a literal."""

    dotted: str


class FromImport(msgspec.Struct, frozen=True, array_like=True, tag="f"):
    """``from <level dots><module> import name [as alias], ...``."""

    module: str | None
    level: int
    top_level: bool
    names: tuple[tuple[str, bool], ...]
    """Each imported name, and whether it is re-bound under its own name (``x as x``)."""


class PythonImports(msgspec.Struct, frozen=True):
    """What one file imports, before resolution: it depends on the file's bytes alone,
    so it can be cached by blob SHA and resolved against any tree's module index."""

    statements: tuple[ModuleImport | FromImport, ...]
    exported: frozenset[str] = frozenset()


def read_python_imports(text: str, filename: str = "<module>") -> PythonImports | None:
    """The import statements of one file; None when it does not parse."""
    try:
        module = ast.parse(text, filename=filename)
    except (SyntaxError, ValueError):
        return None
    return imports_of_module(module, text)


def imports_of_module(module: ast.Module, text: str) -> PythonImports:
    """The import statements of an already parsed file (``text`` is its source)."""
    hint_lines = _hint_lines(text)
    statements: list[ModuleImport | FromImport] = []
    for node, top_level in _walk_with_scope(module, hint_lines):
        if isinstance(node, ast.Import):
            statements.extend(ModuleImport(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = tuple((a.name, a.asname is not None and a.asname == a.name) for a in node.names)
            statements.append(FromImport(node.module, node.level, top_level, names))
        elif isinstance(node, ast.Call):
            literal = _dynamic_import_literal(node)
            if literal is not None:
                statements.append(ModuleImport(literal))
    return PythonImports(tuple(statements), _exported_names(module))


def resolve_python_imports(
    importer: str, imports: PythonImports, index: PythonModuleIndex
) -> list[ImportEdge]:
    """Edges from ``importer`` to the files of the tree ``index`` describes."""
    collector = _EdgeCollector(importer, index, imports.exported)
    for statement in imports.statements:
        collector.add(statement)
    return collector.edges()


def python_import_edges(importer: str, text: str, index: PythonModuleIndex) -> list[ImportEdge]:
    """Edges from ``importer`` to the tree's files it imports; [] for unparsable files."""
    imports = read_python_imports(text, importer)
    return resolve_python_imports(importer, imports, index) if imports is not None else []


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_DYNAMIC_IMPORT_HINTS = ("import_module", "__import__")


_SOURCE_LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""Where Python's tokenizer ends a line (so ``ast`` line numbers match): not form feeds."""


def _hint_lines(text: str) -> tuple[int, ...]:
    """Sorted line numbers (1-based) that name ``import_module`` or ``__import__``.

    Most files name neither: an empty tuple, and only statements are walked.
    """
    if not any(hint in text for hint in _DYNAMIC_IMPORT_HINTS):
        return ()
    return tuple(
        number
        for number, line in enumerate(_SOURCE_LINE_BREAK.split(text), start=1)
        if any(hint in line for hint in _DYNAMIC_IMPORT_HINTS)
    )


_STATEMENT_BEARING = (ast.stmt, ast.excepthandler, ast.match_case)


def _may_call_importer(node: ast.AST, hint_lines: tuple[int, ...]) -> bool:
    """Whether an expression-side node can hold an ``import_module``/``__import__`` call.

    Such a call names its function inside the node's lines; a node without positions
    (``arguments``, ``comprehension``...) is always descended into. A binary search
    keeps a file that names the hint on every line linear, not quadratic.
    """
    first = getattr(node, "lineno", None)
    last = getattr(node, "end_lineno", None)
    if first is None or last is None:
        return True
    at = bisect.bisect_left(hint_lines, first)
    return at < len(hint_lines) and hint_lines[at] <= last


def _walk_with_scope(
    module: ast.Module, hint_lines: tuple[int, ...]
) -> Iterator[tuple[ast.AST, bool]]:
    """Import-bearing nodes, flagged True when they run when the module itself is imported.

    Only statements are visited (imports are statements) unless the file names
    ``import_module``/``__import__`` somewhere (``hint_lines``): then every node whose
    lines may hold such a call is visited too (an expression holds no statement, so
    one whose lines name neither is skipped whole).
    """
    with_calls = bool(hint_lines)
    stack: list[tuple[ast.AST, bool]] = [(node, True) for node in reversed(module.body)]
    while stack:
        node, top_level = stack.pop()
        yield node, top_level
        nested = top_level and not isinstance(node, _SCOPES)
        if with_calls:
            children = [
                child
                for child in ast.iter_child_nodes(node)
                if isinstance(child, _STATEMENT_BEARING) or _may_call_importer(child, hint_lines)
            ]
        elif isinstance(node, ast.stmt | ast.excepthandler | ast.match_case):
            children = [
                child
                for name in ("body", "orelse", "finalbody", "handlers", "cases")
                for child in getattr(node, name, ())
            ]
        else:
            children = []
        stack.extend((child, nested) for child in reversed(children))


def _assigns_all(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
        targets = [statement.target]
    else:
        return False
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)


def _exported_names(module: ast.Module) -> frozenset[str]:
    """Literal entries of the module-level ``__all__`` (assigned or extended)."""
    names: set[str] = set()
    for statement in module.body:
        if not _assigns_all(statement):
            continue
        value = getattr(statement, "value", None)
        if isinstance(value, ast.List | ast.Tuple | ast.Set):
            names.update(
                item.value
                for item in value.elts
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            )
    return frozenset(names)


class _EdgeCollector:
    """Accumulates resolved imports of one file, merging repeats of the same target."""

    def __init__(self, importer: str, index: PythonModuleIndex, exported: frozenset[str]) -> None:
        self._importer = importer
        self._index = index
        self._exported = exported
        self._is_package_init = posixpath.basename(importer) in _INIT_NAMES
        self._whole: dict[str, bool] = {}
        self._named: dict[tuple[str, bool], list[str]] = {}

    def add(self, statement: ModuleImport | FromImport) -> None:
        if isinstance(statement, ModuleImport):
            self._add_module(statement.dotted)
        else:
            self._add_from(statement)

    def edges(self) -> list[ImportEdge]:
        result = [
            ImportEdge(importer=self._importer, target=target, reexport=reexport)
            for target, reexport in self._whole.items()
        ]
        result.extend(
            ImportEdge(importer=self._importer, target=target, names=names, reexport=reexport)
            for (target, reexport), names in self._named.items()
        )
        return sorted(result, key=lambda edge: (edge.target, edge.names is not None, edge.reexport))

    def _link_whole(self, target: str | None, reexport: bool = False) -> None:
        if target is None or target == self._importer:
            return
        self._whole[target] = self._whole.get(target, False) or reexport

    def _link_name(self, target: str, name: str, reexport: bool) -> None:
        if target == self._importer:
            return
        names = self._named.setdefault((target, reexport), [])
        if name not in names:
            names.append(name)

    def _add_module(self, dotted: str) -> None:
        """``import a.b.c``: the deepest module of the dotted path found in the tree."""
        parts = dotted.split(".")
        search = self._index.search_dirs(self._importer)
        for depth in range(len(parts), 0, -1):
            for root in search:
                target = self._index.module_file(_join(root, *parts[:depth]))
                if target is not None:
                    self._link_whole(target)
                    return

    def _add_from(self, node: FromImport) -> None:
        bases = self._from_bases(node)
        if not bases:
            return
        for name, same_alias in node.names:
            reexport = node.top_level and (
                self._is_package_init or name in self._exported or same_alias
            )
            if name == "*":
                self._link_whole(_first(self._index.module_file(base) for base in bases), reexport)
                continue
            for base in bases:
                submodule = self._index.module_file(_join(base, name))
                if submodule is not None:
                    self._link_whole(submodule, reexport)
                    break
                module_file = self._index.module_file(base)
                if module_file is not None:
                    self._link_name(module_file, name, reexport)
                    break

    def _from_bases(self, node: FromImport) -> list[str]:
        """Candidate directories-or-modules (paths without suffix) the import names."""
        parts = node.module.split(".") if node.module else []
        if node.level == 0:
            return [_join(root, *parts) for root in self._index.search_dirs(self._importer)]
        package = posixpath.dirname(self._importer)
        for _ in range(node.level - 1):
            if not package:
                return []
            package = posixpath.dirname(package)
        return [_join(package, *parts)]


def _first(values: Iterator[str | None]) -> str | None:
    return next((value for value in values if value is not None), None)


def _dynamic_import_literal(call: ast.Call) -> str | None:
    """The module of ``importlib.import_module("x")`` / ``__import__("x")`` with a literal name."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__") or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        literal = first.value
        if literal and not literal.startswith("."):
            return literal
    return None
