"""The impact graph: changed source files, their direct importers, and every file reached
transitively. The risk score's breadth counts direct importers (as the seed does): the
transitive set of a core module is most of the repository, which saturates the factor.
"""

from __future__ import annotations

from collections import deque

from prflow.analysis.findings import ImpactEdge, ImpactGraph
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import ImportGraph


def build_impact_graph(
    changed: list[ChangedFile],
    graph: ImportGraph,
    base_graph: ImportGraph | None = None,
    max_depth: int | None = None,
) -> ImpactGraph:
    """Directly changed source files, the files affected through imports, and the edges.

    ``graph`` is the head import graph. A deleted file has no importers at head,
    so its importers come from ``base_graph`` (the same holds for a renamed
    file's old path); without a base graph they are not known. From there on
    the walk follows head imports, since affected files live at head.
    ``max_depth`` limits the walk (1 = direct importers only); None walks all.
    """
    changed_paths = {item.path for item in changed}
    direct = sorted({item.path for item in changed if item.category == FileCategory.source})
    edges: set[tuple[str, str]] = set()
    reached: set[str] = set()
    direct_importers: set[str] = set()
    queue: deque[tuple[str, int]] = deque()
    visited: set[str] = set(direct)

    def visit(importer: str, imported: str, depth: int) -> None:
        edges.add((importer, imported))
        if importer not in changed_paths:
            reached.add(importer)
            if depth == 1:
                direct_importers.add(importer)
        if importer not in visited:
            visited.add(importer)
            queue.append((importer, depth))

    for item in changed:
        if item.category != FileCategory.source:
            continue
        for importer in graph.importers_of(item.path):
            visit(importer, item.path, 1)
        if base_graph is None:
            continue
        if item.status == FileStatus.deleted:
            for importer in base_graph.importers_of(item.path):
                visit(importer, item.path, 1)
        if item.status == FileStatus.renamed and item.old_path:
            for importer in base_graph.importers_of(item.old_path):
                visit(importer, item.path, 1)
    while queue:
        path, depth = queue.popleft()
        if max_depth is not None and depth >= max_depth:
            continue
        for importer in graph.importers_of(path):
            visit(importer, path, depth + 1)
    return ImpactGraph(
        directly_changed=direct,
        direct_importers=sorted(direct_importers),
        indirectly_affected=sorted(reached),
        edges=[ImpactEdge(importer=a, imported=b) for a, b in sorted(edges)],
    )
