"""Building the import graph of a whole tree: pick the files, parse each once."""

from __future__ import annotations

from prflow.imports.graph import ImportEdge, ImportGraph
from prflow.imports.js_imports import JsResolver, is_js_file, js_import_edges
from prflow.imports.python_imports import PythonModuleIndex, is_python_file, python_import_edges
from prflow.imports.tsconfig import TsConfigIndex
from prflow.source_tree import SourceTree, on_disk

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


def build_import_graph(tree: SourceTree) -> ImportGraph:
    """Every resolvable Python and JS/TS import between files of ``tree``.

    Unparsable files contribute no edges; they never fail the build.
    """
    paths = [path for path in tree.paths() if not is_skipped(path)]
    code_paths = [path for path in paths if is_python_file(path) or is_js_file(path)]
    python_index = PythonModuleIndex.from_paths(code_paths)
    js_resolver = JsResolver(
        files=frozenset(path for path in code_paths if is_js_file(path)),
        configs=TsConfigIndex(tree, paths),
    )
    edges: list[ImportEdge] = []
    for path in code_paths:
        if _too_large(tree, path):
            continue
        text = tree.read_text(path)
        if text is None or len(text) > MAX_FILE_BYTES:
            continue
        if is_python_file(path):
            edges.extend(python_import_edges(path, text, python_index))
        else:
            edges.extend(js_import_edges(path, text, js_resolver))
    return ImportGraph(edges=edges)
