"""Building the import graph of a whole tree: pick the files, parse each once.

A big repository's graph is rebuilt cheaply: Python files' import statements
can come from a cache by blob SHA (``python_imports``), and a tree that differs
from an already graphed one only by edited code files keeps the other graph's
edges for every file it did not edit (``reuse``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from prflow.changes import ChangedFile, FileStatus
from prflow.imports.graph import ImportEdge, ImportGraph
from prflow.imports.js_imports import JsResolver, js_import_edges
from prflow.imports.python_imports import (
    PythonImports,
    PythonModuleIndex,
    is_python_file,
    python_import_edges,
    resolve_python_imports,
)
from prflow.imports.tsconfig import TsConfigIndex
from prflow.js_files import is_js_file
from prflow.source_tree import SourceTree, on_disk

PythonImportSource = Callable[[Sequence[str]], Mapping[str, PythonImports | None]]
"""Paths -> their parsed import statements (None: does not parse); paths left out are read
and parsed in place. The activity passes one backed by the blob-SHA parse cache."""

# Vendored, generated or tool-owned directories: never part of the project's own graph.
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        ".git",
        "dist",
        "build",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".next",
        "bower_components",
    }
)
MAX_FILE_BYTES = 1_000_000


def is_skipped(path: str) -> bool:
    """True for files under a vendored / generated directory."""
    return any(part in SKIPPED_DIRS for part in path.split("/")[:-1])


def _too_large(tree: SourceTree, path: str) -> bool:
    if tree.root is None:
        return False
    target = on_disk(tree.root, path)
    try:
        return target.stat().st_size > MAX_FILE_BYTES
    except OSError:
        return True


@dataclass(frozen=True)
class GraphReuse:
    """An import graph of another tree, and how this tree differs from that one."""

    graph: ImportGraph
    tree: SourceTree
    changed: Sequence[ChangedFile]


def reusable_edits(changed: Iterable[ChangedFile]) -> frozenset[str] | None:
    """The edited code files, when the change cannot make other files' imports resolve
    differently: every file modified in place (none added, deleted or renamed) and no JSON
    touched (``tsconfig.json`` and what it extends). None: the whole graph must be built."""
    edited: set[str] = set()
    for item in changed:
        moved = item.old_path is not None and item.old_path != item.path
        if item.status is not FileStatus.modified or moved or item.path.endswith(".json"):
            return None
        if _is_code(item.path):
            edited.add(item.path)
    return frozenset(edited)


def _is_code(path: str) -> bool:
    return is_python_file(path) or is_js_file(path)


def _code_paths(tree: SourceTree) -> list[str]:
    return [path for path in tree.paths() if not is_skipped(path) and _is_code(path)]


@dataclass(frozen=True)
class ReadPlan:
    """Which of a tree's code files a graph build reads, and whether the rest keep edges."""

    code_paths: list[str]
    to_read: list[str]
    keeps_edges: bool
    """True: files not in ``to_read`` keep their edges from the reused graph."""

    def python_to_parse(self, tree: SourceTree) -> list[str]:
        """The Python files of ``to_read`` whose import statements the build asks parsed."""
        return [p for p in self.to_read if is_python_file(p) and not _too_large(tree, p)]


def plan_reads(
    tree: SourceTree,
    reuse_tree: SourceTree | None = None,
    changed: Sequence[ChangedFile] | None = None,
) -> ReadPlan:
    """What building ``tree``'s graph reads, given the tree (and change) a known graph is of.

    Also what a caller parses ahead of the build (several trees in one batch, see
    :meth:`prflow.analysis.parse_cache.ParsedFiles.prefetch`): the same choice, made once.
    """
    code_paths = _code_paths(tree)
    edited = reusable_edits(changed) if reuse_tree is not None and changed is not None else None
    keeps = reuse_tree is not None and edited is not None and _code_paths(reuse_tree) == code_paths
    to_read = [p for p in code_paths if not keeps or (edited is not None and p in edited)]
    return ReadPlan(code_paths=code_paths, to_read=to_read, keeps_edges=keeps)


def build_import_graph(
    tree: SourceTree,
    python_imports: PythonImportSource | None = None,
    reuse: GraphReuse | None = None,
) -> ImportGraph:
    """Every resolvable Python and JS/TS import between files of ``tree``.

    Unparsable files contribute no edges; they never fail the build. With
    ``reuse``, files not edited keep their edges from ``reuse.graph`` when the
    difference allows it (see :func:`reusable_edits`); the result is the same graph.
    """
    paths = [path for path in tree.paths() if not is_skipped(path)]
    plan = plan_reads(tree, reuse.tree if reuse else None, reuse.changed if reuse else None)
    code_paths = plan.code_paths
    kept: dict[str, list[ImportEdge]] | None = None
    if reuse is not None and plan.keeps_edges:
        kept = {}
        for edge in reuse.graph.edges:
            kept.setdefault(edge.importer, []).append(edge)
    python_index = PythonModuleIndex.from_paths(code_paths)
    js_resolver = JsResolver(
        files=frozenset(path for path in code_paths if is_js_file(path)),
        configs=TsConfigIndex(tree, paths),
    )
    to_read = plan.to_read
    wanted = plan.python_to_parse(tree)
    parsed = python_imports(wanted) if python_imports is not None and wanted else {}
    reading = frozenset(to_read)
    edges: list[ImportEdge] = []
    for path in code_paths:
        if path not in reading:
            assert kept is not None
            edges.extend(kept.get(path, ()))
            continue
        if _too_large(tree, path):
            continue
        if path in parsed:
            imports = parsed[path]
            if imports is not None:
                edges.extend(resolve_python_imports(path, imports, python_index))
            continue
        text = tree.read_text(path)
        if text is None or len(text) > MAX_FILE_BYTES:
            continue
        if is_python_file(path):
            edges.extend(python_import_edges(path, text, python_index))
        else:
            edges.extend(js_import_edges(path, text, js_resolver))
    return ImportGraph(edges=edges)
