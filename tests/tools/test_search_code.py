"""search_code: git grep at one side of the PR, with globs, paging and clear errors."""

from __future__ import annotations

from typing import Any

import pytest

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import ToolError, run_tool


def _search(reader: GitRepoReader, r: ResolvedRange, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = run_tool(reader, r, "search_code", arguments).data
    return result


def test_matches_name_file_line_and_text(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    found = _search(pr_reader, pr_range, pattern=r"def helper\(")

    assert found["page"]["items"] == [
        {"file": "pkg/core.py", "line": 1, "match": "def helper(x, y=0):"}
    ]
    assert found["ref"] == "head"
    assert found["sha"] == pr_range.head_sha


def test_base_side_is_searchable(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    found = _search(pr_reader, pr_range, pattern="Old docs", ref="base")

    assert [hit["file"] for hit in found["page"]["items"]] == ["docs/obsolete.md"]


def test_glob_limits_the_files(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    everywhere = _search(pr_reader, pr_range, pattern="helper")
    tests_only = _search(pr_reader, pr_range, pattern="helper", glob="tests/*")

    assert {h["file"] for h in everywhere["page"]["items"]} >= {"pkg/core.py", "tests/test_core.py"}
    assert {h["file"] for h in tests_only["page"]["items"]} == {"tests/test_core.py"}


def test_no_match_is_an_empty_result(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    found = _search(pr_reader, pr_range, pattern="nothing_matches_this_[0-9]{9}")

    assert found["page"]["items"] == []
    assert found["page"]["total"] == 0
    assert found["page"]["has_next"] is False


def test_binary_files_are_not_searched(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    assert _search(pr_reader, pr_range, pattern="IHDR")["page"]["items"] == []


def test_bad_regex_is_a_tool_error(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    with pytest.raises(ToolError, match="invalid regular expression"):
        _search(pr_reader, pr_range, pattern="helper(")


def test_pattern_starting_with_a_dash_is_a_pattern(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    found = _search(pr_reader, pr_range, pattern="-def helper")

    assert found["page"]["items"] == []


def test_results_are_paged(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    first = _search(pr_reader, pr_range, pattern="^line 1[0-9]{2}$", glob="data/*", limit=60)
    second = _search(
        pr_reader, pr_range, pattern="^line 1[0-9]{2}$", glob="data/*", offset=60, limit=60
    )

    assert first["page"]["total"] == 100
    assert first["page"]["has_next"] is True
    assert first["page"]["next_offset"] == 60
    assert len(second["page"]["items"]) == 40
    assert second["page"]["has_next"] is False
    lines = [h["line"] for h in first["page"]["items"] + second["page"]["items"]]
    assert lines == list(range(100, 200))


def test_the_model_reads_hits_grouped_by_file_and_where_the_page_sits(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    text = run_tool(
        pr_reader, pr_range, "search_code", {"pattern": "^line 1[0-9]{2}$", "limit": 3}
    ).text
    lines = text.splitlines()
    assert lines[0] == f"search_code '^line 1[0-9]{{2}}$' at head ({pr_range.head_sha[:12]})"
    assert lines[1].startswith("data/") and lines[2:5] == [
        "  100: line 100",
        "  101: line 101",
        "  102: line 102",
    ]
    assert lines[-1] == "matches 1-3 of 100; more: call again with offset=3"
    assert text.count(lines[1]) == 1, "the path is named once for its hits"
    assert run_tool(pr_reader, pr_range, "search_code", {"pattern": "zz_[0-9]{9}"}).text.endswith(
        "\nno matches"
    )
