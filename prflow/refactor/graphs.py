"""Import graphs of a refactor's workspace states, built from the base commit's graph.

Every state of a run is the base commit with some files changed. A step's audit needs
the graph of the state before the step, after it, and at the run's base; building each
from scratch parses every file of the repository (minutes on a Django-sized tree, three
or more times per step). Here the base commit's graph is built once (the caller keeps it
by commit) and a state's graph re-reads only the files the state changed: unchanged
files keep their edges. When files were added or deleted (other files' imports may then
resolve differently) the graph is built whole, with the caller's parse cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

from prflow.changes import ChangedFile, FileStatus
from prflow.imports import ImportGraph, build_import_graph
from prflow.imports.build import GraphReuse, PythonImportSource
from prflow.source_tree import SourceTree


def changed_files(base_paths: Iterable[str], changes: Mapping[str, bool]) -> list[ChangedFile]:
    """The state's changes as changed files: ``changes`` maps a path to whether it exists
    in the state (False: deleted)."""
    present = set(base_paths)
    out: list[ChangedFile] = []
    for path, exists in sorted(changes.items()):
        if not exists:
            if path in present:
                out.append(ChangedFile(path=path, status=FileStatus.deleted))
        else:
            status = FileStatus.modified if path in present else FileStatus.added
            out.append(ChangedFile(path=path, status=status))
    return out


def state_graph(
    base_graph: ImportGraph,
    base_tree: SourceTree,
    tree: SourceTree,
    changes: Mapping[str, bool],
    python_imports: PythonImportSource | None = None,
) -> ImportGraph:
    """The import graph of ``tree`` (``base_tree`` with ``changes``), the same as
    :func:`build_import_graph` gives, re-reading only the changed files when none was
    added or deleted."""
    if not changes:
        return base_graph
    reuse = GraphReuse(base_graph, base_tree, changed_files(base_tree.paths(), changes))
    return build_import_graph(tree, python_imports, reuse)


class GraphMemory:
    """A few recent graphs in memory by key; a worker's side-by-side steps share it."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._graphs: OrderedDict[tuple[str, ...], ImportGraph] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_build(self, key: tuple[str, ...], build: Callable[[], ImportGraph]) -> ImportGraph:
        with self._lock:
            found = self._graphs.get(key)
            if found is not None:
                self._graphs.move_to_end(key)
                return found
        graph = build()  # outside the lock: two steps may build at once, both get a graph
        with self._lock:
            self._graphs[key] = graph
            self._graphs.move_to_end(key)
            while len(self._graphs) > self._size:
                self._graphs.popitem(last=False)
        return graph
