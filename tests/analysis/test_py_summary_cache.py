"""Module summaries by blob SHA: one parse per file content, shared by the import graph and the
API analysis, across both sides of a range and later PRs, with the same answers as without."""

from __future__ import annotations

from pathlib import Path

from prflow.analysis.breaking_python import find_python_breaking_changes, python_parser
from prflow.analysis.parse_cache import MemoryParseCache, ParsedFiles
from prflow.analysis.py_summary import cached_imports
from prflow.changes import ChangedFile, FileStatus
from prflow.imports.build import GraphReuse, build_import_graph, plan_reads, reusable_edits
from prflow.source_tree import MemoryTree
from prflow.store.parse_cache import StoreParseCache

BASE = {
    "pkg/__init__.py": "from .client import Client, fetch\nfrom .util import helper\n",
    "pkg/client.py": (
        "from .util import helper\n\n\n"
        "class Client:\n    def send(self, url: str) -> bytes:\n        return helper(url)\n\n\n"
        "def fetch(url, timeout=5):\n    return Client().send(url)\n"
    ),
    "pkg/util.py": "def helper(value):\n    return value\n",
    "pkg/extra.py": "import pkg.util\nfrom pkg import client\n",
    "tests/test_client.py": "from pkg.client import fetch\n\n\ndef test_fetch():\n    fetch('x')\n",
}
HEAD = {
    **BASE,
    "pkg/client.py": BASE["pkg/client.py"].replace("def fetch(url,", "def fetch(url, retries,"),
}
CHANGED = [ChangedFile(path="pkg/client.py", status=FileStatus.modified)]


def _graph_with_cache(tree: MemoryTree, parsed: ParsedFiles) -> list[tuple[str, str]]:
    graph = build_import_graph(tree, cached_imports(parsed, tree))
    return sorted((e.importer, e.target) for e in graph.edges)


def test_the_other_side_and_the_next_run_parse_only_the_changed_file(tmp_path: Path) -> None:
    cache = StoreParseCache(f"sqlite:///{tmp_path / 'cache.db'}")
    base, head = MemoryTree(BASE), MemoryTree(HEAD)
    first = ParsedFiles(python_parser(), cache)
    build_import_graph(base, cached_imports(first, base))
    second = ParsedFiles(python_parser(), cache)
    build_import_graph(head, cached_imports(second, head))
    # The API analysis of the same range then reads every module from the cache.
    diff = find_python_breaking_changes(CHANGED, base, head, cache)
    # A later run over the same commits (another worker process) parses nothing at all.
    third = ParsedFiles(python_parser(), cache)
    build_import_graph(head, cached_imports(third, head))

    assert (first.parsed_count, second.parsed_count) == (len(BASE), 1)
    assert diff.parsed_files == 0
    assert [c.symbol for c in diff.changes] == ["fetch"]
    assert third.parsed_count == 0


def test_results_with_the_cache_equal_results_without() -> None:
    base, head = MemoryTree(BASE), MemoryTree(HEAD)
    cache = MemoryParseCache()
    warm = ParsedFiles(python_parser(), cache)
    _graph_with_cache(base, warm)

    plain = build_import_graph(head)
    cached = build_import_graph(head, cached_imports(ParsedFiles(python_parser(), cache), head))
    reused = build_import_graph(head, reuse=GraphReuse(build_import_graph(base), base, CHANGED))
    without = find_python_breaking_changes(CHANGED, base, head, MemoryParseCache())
    with_cache = find_python_breaking_changes(CHANGED, base, head, cache)

    assert cached.edges == plain.edges
    assert reused.edges == plain.edges
    assert with_cache.changes == without.changes
    assert without.changes  # the new required parameter is found both ways


def test_a_changed_blob_is_parsed_again_and_its_new_imports_count() -> None:
    cache = MemoryParseCache()
    base = MemoryTree(BASE)
    _graph_with_cache(base, ParsedFiles(python_parser(), cache))
    edited = {**BASE, "pkg/extra.py": "from pkg.client import Client\n"}
    tree = MemoryTree(edited)
    parsed = ParsedFiles(python_parser(), cache)

    edges = _graph_with_cache(tree, parsed)
    changed = [ChangedFile(path="pkg/extra.py", status=FileStatus.modified)]
    reused = build_import_graph(tree, reuse=GraphReuse(build_import_graph(base), base, changed))

    assert parsed.parsed_count == 1
    assert ("pkg/extra.py", "pkg/client.py") in edges
    assert ("pkg/extra.py", "pkg/util.py") not in edges
    assert sorted((e.importer, e.target) for e in reused.edges) == edges


def test_an_added_module_makes_every_file_resolve_again() -> None:
    """``from pkg import helpers`` in an unedited file names the new module ``pkg/helpers.py``
    once it exists, so the other graph's edges are not kept when a file is added."""
    before = {**BASE, "pkg/extra.py": "from pkg import helpers\n"}
    base = MemoryTree(before)
    grown = MemoryTree({**before, "pkg/helpers.py": "X = 1\n"})
    changed = [ChangedFile(path="pkg/helpers.py", status=FileStatus.added)]

    reused = build_import_graph(grown, reuse=GraphReuse(build_import_graph(base), base, changed))

    assert reused.edges == build_import_graph(grown).edges
    assert ("pkg/extra.py", "pkg/helpers.py") in {(e.importer, e.target) for e in reused.edges}


def test_edits_to_docs_keep_the_other_graph_but_json_and_moves_do_not() -> None:
    code = ChangedFile(path="pkg/client.py", status=FileStatus.modified)
    doc = ChangedFile(path="README.md", status=FileStatus.modified)
    config = ChangedFile(path="tsconfig.base.json", status=FileStatus.modified)
    moved = ChangedFile(path="pkg/web.py", status=FileStatus.renamed, old_path="pkg/client.py")

    assert reusable_edits([code, doc]) == frozenset({"pkg/client.py"})
    assert reusable_edits([code, config]) is None
    assert reusable_edits([moved]) is None


def test_files_planned_and_parsed_ahead_leave_both_graph_builds_nothing_to_parse() -> None:
    # The activity parses base and head in one batch before building either graph; the
    # plan must name exactly what each build reads, or a build parses again (or misses).
    added = [*CHANGED, ChangedFile(path="pkg/new.py", status=FileStatus.added)]
    for head_files, changed in ((HEAD, CHANGED), ({**HEAD, "pkg/new.py": "X = 1\n"}, added)):
        base, head = MemoryTree(BASE), MemoryTree(head_files)
        cache = MemoryParseCache()
        ahead = ParsedFiles(python_parser(), cache)
        ahead.prefetch(
            [
                (base, plan_reads(base).python_to_parse(base)),
                (head, plan_reads(head, base, changed).python_to_parse(head)),
            ]
        )
        assert ahead.parsed_count == len(BASE) + len(changed)
        first = ParsedFiles(python_parser(), cache)
        base_graph = build_import_graph(base, cached_imports(first, base))
        second = ParsedFiles(python_parser(), cache)
        head_graph = build_import_graph(
            head, cached_imports(second, head), GraphReuse(base_graph, base, changed)
        )
        assert (first.parsed_count, second.parsed_count) == (0, 0)
        assert head_graph == build_import_graph(
            head, cached_imports(ParsedFiles(python_parser(), MemoryParseCache()), head)
        )
