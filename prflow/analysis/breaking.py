"""Breaking changes of a PR in every language we read, each with the files that use it."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from prflow.analysis.breaking_js import find_js_breaking_changes
from prflow.analysis.breaking_python import find_python_breaking_changes
from prflow.analysis.categories import categorize
from prflow.analysis.findings import BreakingChange, NotAnalysed
from prflow.analysis.parse_cache import InputLimits, MemoryParseCache, ParseCache
from prflow.analysis.ts_compiler import TypeJudge
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports.graph import ImportGraph
from prflow.source_tree import CachedTree, SourceTree

_NOT_AN_API = {FileCategory.test, FileCategory.doc, FileCategory.config}


def _is_manifest(path: str) -> bool:
    return path == "package.json" or path.endswith("/package.json")


@dataclass
class BreakingAnalysis:
    """The breaking changes, and what could not be analysed (listed, never guessed)."""

    changes: list[BreakingChange]
    not_analysed: list[NotAnalysed] = field(default_factory=list)
    type_judge: str | None = None
    """Who judged JS/TS type changes (None when no JS/TS package was compared)."""


def find_breaking_changes(
    changed: list[ChangedFile],
    base: SourceTree,
    head: SourceTree,
    head_graph: ImportGraph | None,
    base_graph: ImportGraph | None,
) -> list[BreakingChange]:
    """Every breaking change, sorted by file and line (see :func:`analyse_breaking_changes`)."""
    return analyse_breaking_changes(changed, base, head, head_graph, base_graph).changes


def analyse_breaking_changes(
    changed: list[ChangedFile],
    base: SourceTree,
    head: SourceTree,
    head_graph: ImportGraph | None,
    base_graph: ImportGraph | None,
    cache: ParseCache | None = None,
    limits: InputLimits | None = None,
    progress: Callable[[str], None] | None = None,
    compiler: TypeJudge | None = None,
) -> BreakingAnalysis:
    """Every breaking change, sorted by file and line, with consumers from the import graphs.

    Files categorized as tests, docs or configuration have no importers to
    break, so their symbols are not an API. Consumers are looked up at head,
    where the breakage will bite; a file gone at head has no importers there
    any more, so its base importers are used. ``cache`` keeps parse results
    across base, head and runs; files over ``limits`` are listed as not analysed.
    ``compiler`` (a TypeScript compiler, or its locator) judges JS/TS type changes when given.
    """
    code = [item for item in changed if item.category not in _NOT_AN_API]
    # A package.json is configuration, but its entry fields say where consumers find the JS/TS
    # API: the JS/TS analysis reads it (and only when those fields changed).
    manifests = [item for item in changed if item not in code and _is_manifest(item.path)]
    cache = cache if cache is not None else MemoryParseCache()
    python = find_python_breaking_changes(code, base, head, cache, limits, progress)
    js = find_js_breaking_changes(code + manifests, base, head, cache, limits, compiler, progress)
    changes = python.changes + js.changes
    gone_at_head = {
        item.old_path or item.path
        for item in changed
        if item.status in (FileStatus.deleted, FileStatus.renamed)
    }

    read_head, read_base = CachedTree(head), CachedTree(base)
    head_words: dict[str, frozenset[str]] = {}
    base_words: dict[str, frozenset[str]] = {}

    @functools.cache
    def users(file: str, imported_name: str) -> list[str]:
        found = set()
        if head_graph is not None:
            found.update(head_graph.symbol_consumers(file, imported_name, read_head, head_words))
        if file in gone_at_head and base_graph is not None:
            found.update(base_graph.symbol_consumers(file, imported_name, read_base, base_words))
        found.discard(file)
        return sorted(found)

    def consumers(change: BreakingChange) -> list[str]:
        if change.before == f"module {change.symbol}":  # a whole module: all its importers
            found = set(_importers(head_graph, change.file))
            if change.file in gone_at_head:
                found.update(_importers(base_graph, change.file))
            found.discard(change.file)
            return sorted(found)
        # Importers name the top-level symbol: ``Client`` for ``Client.fetch``.
        top, _, rest = change.symbol.partition(".")
        importers = users(change.file, top)
        member = rest.rsplit(".", 1)[-1]
        if not member or member in _IMPLICIT_MEMBERS or _is_dunder(member):
            return importers  # constructors and operators are used through the class itself
        # A member's consumers use its name (``x.fetch``, ``{ fetch } = x``), not just the class.
        return [path for path in importers if member in file_words(path)]

    @functools.cache
    def file_words(path: str) -> frozenset[str]:
        text = read_head.read_text(path)
        if text is None and path in gone_at_head:
            text = read_base.read_text(path)
        return frozenset(_WORD.findall(text or ""))

    # Re-export chains can lead into tests or docs; those are still not an API.
    changes = [c for c in changes if categorize(c.file) not in _NOT_AN_API]
    unique = {(c.file, c.symbol, c.kind): c for c in changes}
    attached = [c.model_copy(update={"consumers": consumers(c)}) for c in unique.values()]
    return BreakingAnalysis(
        changes=sorted(attached, key=lambda c: (c.file, c.line or 0, c.symbol, c.kind)),
        not_analysed=python.not_analysed + js.not_analysed,
        type_judge=js.judge,
    )


_WORD = re.compile(r"[\w$]+")
_IMPLICIT_MEMBERS = frozenset({"constructor", "prototype"})


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _importers(graph: ImportGraph | None, path: str) -> list[str]:
    return graph.importers_of(path) if graph is not None else []
