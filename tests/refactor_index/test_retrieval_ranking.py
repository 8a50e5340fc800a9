"""Pure parts of retrieval: scaling, fusion, graph expansion, the cut, lexical and named scores."""

from __future__ import annotations

import numpy as np
import pytest

from prflow import embeddings
from prflow.imports.graph import ImportEdge
from prflow.refactor_index.models import FileRecord, IndexedFile, RepoIndex, SymbolRecord
from prflow.refactor_index.retrieval import (
    cut,
    expand_through_imports,
    fuse,
    lexical_scores,
    mentioned_names,
    named_scores,
    rank,
    retrieve_files,
    scaled,
    symbol_scores,
    unknown_paths,
)
from prflow.refactor_index.terms import query_terms, split_identifier, words


def record(terms: dict[str, int], symbols: tuple[str, ...] = ()) -> FileRecord:
    return FileRecord(
        language="python",
        terms=terms,
        symbols=[
            SymbolRecord(name=n, kind="function", line=1, end_line=2, signature=f"def {n}():")
            for n in symbols
        ],
    )


def test_identifiers_split_at_case_and_underscores() -> None:
    assert split_identifier("getHTTPResponse") == ["get", "http", "response"]
    assert words("parse_json_config(parseJsonConfig) the") == {"parse": 2, "json": 2, "config": 2}
    assert query_terms("Convert the sync file operations to async") == [
        "convert",
        "sync",
        "file",
        "operations",
    ]


def test_scaled_maps_the_floor_to_zero_and_the_best_to_one() -> None:
    assert scaled({"a": 4.0, "b": 2.0, "c": 0.0}) == {"a": 1.0, "b": 0.5, "c": 0.0}
    median_floor = scaled({"a": 0.9, "b": 0.5, "c": 0.4}, floor_quantile=0.5)
    assert median_floor == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert scaled({"a": 1.0, "b": 1.0}) == {"a": 1.0, "b": 1.0}
    assert scaled({}) == {}


def test_fuse_adds_weighted_scores_and_ignores_zeros() -> None:
    fused = fuse(
        {"lexical": {"a": 1.0, "b": 0.5}, "semantic": {"b": 1.0, "c": 0.0}},
        {"lexical": 1.0, "semantic": 0.5},
    )
    assert fused == {"a": 1.0, "b": 1.0}


def test_rank_is_best_first_with_ties_by_path_and_drops_non_positive() -> None:
    assert rank({"b": 1.0, "a": 1.0, "c": 2.0, "d": 0.0}) == ["c", "a", "b"]


def test_expansion_brings_in_importers_and_imports_of_the_top_seeds_only() -> None:
    edges = [
        ImportEdge(importer="caller.py", target="core.py"),
        ImportEdge(importer="core.py", target="util.py"),
        ImportEdge(importer="other.py", target="weak.py"),
    ]
    expanded = expand_through_imports({"core.py": 1.0, "weak.py": 0.1}, edges, seeds=1, share=0.5)
    assert expanded == {"core.py": 1.0, "weak.py": 0.1, "caller.py": 0.5, "util.py": 0.5}


def test_expansion_never_lowers_a_score() -> None:
    edges = [ImportEdge(importer="a.py", target="b.py")]
    assert expand_through_imports({"a.py": 1.0, "b.py": 0.9}, edges, 2, 0.5)["b.py"] == 0.9


def test_cut_keeps_at_most_max_files_above_the_ratio_of_the_best() -> None:
    scores = {"a": 1.0, "b": 0.7, "c": 0.65, "d": 0.2}
    assert cut(scores, max_files=10, min_ratio=0.6) == ["a", "b", "c"]
    assert cut(scores, max_files=2, min_ratio=0.0) == ["a", "b"]
    assert cut({}, 5, 0.5) == []


def test_bm25_prefers_the_file_about_the_query() -> None:
    records = {
        "storage/files.py": record({"file": 5, "read": 3, "write": 3, "sync": 2}),
        "web/routes.py": record({"route": 4, "request": 3}),
        "web/views.py": record({"view": 4, "render": 2, "file": 1}),
    }
    scores = lexical_scores("make the sync file reads async", records)
    assert rank(scores)[0] == "storage/files.py"
    assert scores["web/routes.py"] == 0.0


def test_path_words_count_for_lexical_search() -> None:
    records = {"cache/lru.py": record({"thing": 1}), "misc/other.py": record({"thing": 1})}
    assert rank(lexical_scores("fix the lru cache eviction", records))[0] == "cache/lru.py"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Fix ``parse_config`` on empty files", "conf/loader.py"),
        ("storage/io.py leaks handles", "storage/io.py"),
        ("Graph.add_edge accepts weights", "graph/core.py"),
    ],
)
def test_names_in_the_query_point_at_their_files(query: str, expected: str) -> None:
    records = {
        "conf/loader.py": record({}, ("parse_config",)),
        "storage/io.py": record({}, ("read",)),
        "graph/core.py": record({}, ("Graph", "Graph.add_edge")),
        "graph/other.py": record({}, ("edge_list",)),
    }
    assert rank(named_scores(query, records))[0] == expected


def test_unknown_paths_are_those_not_in_the_snapshot() -> None:
    index = RepoIndex(
        version="v", files=[IndexedFile(path="a.py", blob_sha="0" * 40, language="python")]
    )
    assert unknown_paths(["a.py", "ghost.py", "ghost.py"], index) == ["ghost.py"]


def test_only_names_written_as_code_count_as_mentions() -> None:
    mentioned = mentioned_names(
        "The ``xmlattr`` filter and @click.group() keep parse_config, getUser and 'io.py' apart"
    )
    assert mentioned == {"xmlattr", "click.group", "parse_config", "getuser", "io.py"}


def test_a_plain_word_naming_a_symbol_is_not_a_mention() -> None:
    records = {"nodes.py": record({}, ("Filter",)), "filters.py": record({}, ("do_xmlattr",))}
    assert named_scores("``xmlattr`` filter rejects keys with spaces", records) == {
        "filters.py": 1.0
    }


def test_symbol_scores_rank_a_file_by_its_best_symbol() -> None:
    records = {
        "serving.py": record({}, ("log_request", "handle_ssl_eof")),
        "http.py": record({}, ("parse_options_header",)),
    }
    scores = symbol_scores("dev server handles SSL EOF errors", records)
    assert rank(scores) == ["serving.py"]


def test_barrel_files_rank_below_the_file_that_defines_the_names() -> None:
    index = RepoIndex(
        version="v",
        files=[
            IndexedFile(path=p, blob_sha="0" * 40, language="python")
            for p in ("pkg/__init__.py", "pkg/decorators.py")
        ],
    )
    barrel = record({"command": 1, "option": 1, "group": 1}).model_copy(update={"is_barrel": True})
    records = {"pkg/__init__.py": barrel, "pkg/decorators.py": record({"command": 1, "group": 1})}
    vectors = {p: np.zeros((1, embeddings.DIM), dtype=np.float32) for p in records}
    bundle = retrieve_files(
        "type hints of the command and group decorators",
        index,
        records,
        vectors,
        np.ones(embeddings.DIM, dtype=np.float32),
    )
    assert bundle.paths()[0] == "pkg/decorators.py"
