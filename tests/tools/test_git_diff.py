"""git_diff: per-file diffs, rename pairing, and the truncation marker."""

from __future__ import annotations

import re

import pytest

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import ToolError, run_tool
from tests.support.fixtures_git import BIG_LINES

MARKER = re.compile(
    r"^\[\.\.\. truncated: (\d+) more lines; call again with offset=(\d+) \.\.\.\]$"
)


def test_one_file_diff_shows_only_that_file(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    text = run_tool(pr_reader, pr_range, "git_diff", {"file": "pkg/core.py"}).text

    assert text.startswith("diff --git a/pkg/core.py b/pkg/core.py")
    assert "+def helper(x, y=0):" in text
    assert "-def helper(x):" in text
    assert "feature.py" not in text


def test_renamed_file_is_found_by_either_name(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    by_new = run_tool(pr_reader, pr_range, "git_diff", {"file": "pkg/new_name.py"}).text
    by_old = run_tool(pr_reader, pr_range, "git_diff", {"file": "pkg/old_name.py"}).text

    assert by_new == by_old
    assert "rename from pkg/old_name.py" in by_new
    assert "rename to pkg/new_name.py" in by_new


def test_whole_diff_excludes_changes_made_on_base(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    text = run_tool(pr_reader, pr_range, "git_diff", {"limit": 2000}).text

    assert "diff --git a/pkg/core.py" in text
    assert "README.md" not in text
    assert "Binary files /dev/null and b/assets/logo.png differ" in text


def test_unchanged_file_is_a_tool_error_listing_changed_files(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError) as caught:
        run_tool(pr_reader, pr_range, "git_diff", {"file": "pkg/service.py"})

    assert "not changed" in caught.value.message
    assert "pkg/core.py" in caught.value.message


def test_long_diff_ends_with_a_marker_that_resumes_exactly(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    full = run_tool(pr_reader, pr_range, "git_diff", {"file": "data/big.txt", "limit": 2000}).text
    full_lines = full.split("\n")
    assert not MARKER.match(full_lines[-1])
    assert len(full_lines) == BIG_LINES + 5  # 4 header lines (no blob ids) + the hunk header
    assert not any(line.startswith("index ") for line in full_lines)

    first = run_tool(pr_reader, pr_range, "git_diff", {"file": "data/big.txt", "limit": 100}).text
    *shown, marker = first.split("\n")
    found = MARKER.match(marker)
    assert found is not None
    remaining, next_offset = int(found[1]), int(found[2])
    assert (len(shown), next_offset, remaining) == (100, 100, len(full_lines) - 100)

    rest = run_tool(
        pr_reader,
        pr_range,
        "git_diff",
        {"file": "data/big.txt", "offset": next_offset, "limit": 2000},
    ).text
    assert shown + rest.split("\n") == full_lines
