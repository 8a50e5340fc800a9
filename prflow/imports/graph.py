"""The repository's import graph and the questions analyzers ask of it.

Edges are file-to-file: ``importer`` imports ``target`` (both repo-relative
POSIX paths of files in the tree). Imports that do not resolve to a file of
the tree (third-party packages, assets) are not edges.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable

from pydantic import BaseModel, Field, PrivateAttr

from prflow.source_tree import SourceTree


class ImportEdge(BaseModel):
    """One import of one file by another."""

    importer: str
    target: str
    names: list[str] | None = Field(
        default=None,
        description=(
            "Names imported from the target, as the target spells them ('default' for a JS "
            "default import); None for whole-module, namespace, star or side-effect imports"
        ),
    )
    reexport: bool = Field(
        default=False, description="True when the importer passes the names on to its own importers"
    )


class ImportGraph(BaseModel):
    """All import edges of one snapshot, with reverse-dependency queries."""

    edges: list[ImportEdge] = Field(default_factory=list)
    _incoming: dict[str, list[ImportEdge]] | None = PrivateAttr(default=None)

    def _edges_into(self, path: str) -> list[ImportEdge]:
        if self._incoming is None:
            incoming: dict[str, list[ImportEdge]] = {}
            for edge in self.edges:
                incoming.setdefault(edge.target, []).append(edge)
            self._incoming = incoming
        return self._incoming.get(path, [])

    def importers_of(self, path: str) -> list[str]:
        """Files that import ``path`` directly, sorted."""
        return sorted({edge.importer for edge in self._edges_into(path)})

    def transitive_importers(self, paths: Iterable[str]) -> dict[str, int]:
        """Every file that reaches one of ``paths`` through imports, with its hop distance.

        Distance 1 means a direct importer. The input paths themselves are left out,
        even when they import each other.
        """
        starts = set(paths)
        distance: dict[str, int] = {}
        queue: deque[tuple[str, int]] = deque((path, 0) for path in sorted(starts))
        while queue:
            path, hops = queue.popleft()
            for importer in self.importers_of(path):
                if importer in starts or importer in distance:
                    continue
                distance[importer] = hops + 1
                queue.append((importer, hops + 1))
        return dict(sorted(distance.items()))

    def importers_through_reexports(self, path: str) -> list[str]:
        """Direct importers of ``path`` plus files that get its names via re-exporting files.

        A test doing ``from pkg import helper`` depends on ``pkg/helpers.py`` when
        ``pkg/__init__.py`` re-exports ``helper`` from there; this finds such files.
        Only importers of the names that actually travel down the chain are counted.
        """
        found: set[str] = set()
        seen: set[tuple[str, tuple[str, ...] | None]] = set()
        queue: deque[tuple[str, frozenset[str] | None]] = deque([(path, None)])
        while queue:
            current, wanted = queue.popleft()
            key = (current, None if wanted is None else tuple(sorted(wanted)))
            if key in seen:
                continue
            seen.add(key)
            for edge in self._edges_into(current):
                carried = _names_carried(edge.names, wanted)
                if carried is not None and not carried:
                    continue
                found.add(edge.importer)
                if edge.reexport:
                    queue.append((edge.importer, carried))
        found.discard(path)
        return sorted(found)

    def symbol_consumers(
        self,
        path: str,
        symbol: str,
        tree: SourceTree,
        words: dict[str, frozenset[str]] | None = None,
    ) -> list[str]:
        """Files that use ``symbol`` defined in ``path``.

        Counted: files importing the name (``from m import symbol``,
        ``import {symbol} from``), following re-export chains such as
        ``pkg/core.py -> pkg/__init__.py -> app.py`` or a TS barrel ``index.ts``;
        and files importing the whole module (module, namespace or star import)
        whose text mentions the name as a word (``mod.symbol``, ``ns.symbol`` or the
        bare name after a star import). Re-exporting files are included: a
        change to the symbol reaches them too. The defining file is never listed.
        ``words`` caches each file's identifiers across calls (one scan per file).
        """
        words = {} if words is None else words
        consumers: set[str] = set()
        visited: set[str] = set()
        queue: deque[str] = deque([path])
        while queue:
            current = queue.popleft()
            if current in visited:
                continue
            visited.add(current)
            for edge in self._edges_into(current):
                if edge.names is not None:
                    uses = symbol in edge.names
                else:
                    uses = edge.reexport or _mentions(edge.importer, symbol, tree, words)
                if not uses:
                    continue
                consumers.add(edge.importer)
                if edge.reexport:
                    queue.append(edge.importer)
        consumers.discard(path)
        return sorted(consumers)


_IDENTIFIER = re.compile(r"[\w$]+")


def _mentions(path: str, word: str, tree: SourceTree, words: dict[str, frozenset[str]]) -> bool:
    """Whether ``word`` is one of the file's identifiers (``words`` caches each file's set).

    A word the text does not even hold as a substring is not among them: most files
    are ruled out this way without collecting their identifiers.
    """
    if path not in words:
        text = tree.read_text(path) or ""
        if word not in text:
            return False
        words[path] = frozenset(_IDENTIFIER.findall(text))
    return word in words[path]


def _names_carried(
    edge_names: list[str] | None, wanted: frozenset[str] | None
) -> frozenset[str] | None:
    """Names of interest that pass through an edge; None means 'everything'."""
    if wanted is None:
        return None if edge_names is None else frozenset(edge_names)
    if edge_names is None:
        return wanted
    return wanted & frozenset(edge_names)
