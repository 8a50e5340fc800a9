"""read_file_at_ref: numbered windows, both sides of the PR, binary and non-UTF-8 files."""

from __future__ import annotations

import re

import pytest

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import ToolError, run_tool
from tests.support.fixtures_git import BIG_LINES, PullRequestRepo


def _read(reader: GitRepoReader, r: ResolvedRange, **arguments: object) -> str:
    return run_tool(reader, r, "read_file_at_ref", dict(arguments)).text


def test_head_and_base_show_each_side_with_line_numbers(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    head = _read(pr_reader, pr_range, path="pkg/core.py").split("\n")
    base = _read(pr_reader, pr_range, path="pkg/core.py", ref="base").split("\n")

    assert head[0].startswith(f"pkg/core.py at head ({pr_range.head_sha[:12]}), lines 1-6 of 6")
    assert head[1] == "     1\tdef helper(x, y=0):"
    assert head[6] == "     6\t    return 2"
    assert base[1:] == ["     1\tdef helper(x):", "     2\t    return x + 1"]


def test_base_means_the_fork_point_not_the_moved_base_branch(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    text = _read(pr_reader, pr_range, path="README.md", ref="base")

    assert "Use pkg.core.helper." in text
    assert "Changed on main" not in text


def test_a_commit_id_can_be_the_ref(
    pr_reader: GitRepoReader, pr_range: ResolvedRange, pr_repo: PullRequestRepo
) -> None:
    text = _read(pr_reader, pr_range, path="README.md", ref=pr_repo.main_sha[:10])

    assert "Changed on main after the fork." in text


def test_unknown_commit_and_junk_refs_are_tool_errors(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError, match="no commit"):
        _read(pr_reader, pr_range, path="README.md", ref="deadbeefdeadbeef")
    with pytest.raises(ToolError, match="not understood"):
        _read(pr_reader, pr_range, path="README.md", ref="main; rm -rf /")


def test_long_file_is_windowed_with_a_resumable_marker(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    first = _read(pr_reader, pr_range, path="data/big.txt", limit_lines=10).split("\n")
    marker = re.fullmatch(
        r"\[\.\.\. truncated: (\d+) more lines; call again with offset_line=(\d+) \.\.\.\]",
        first[-1],
    )
    assert marker is not None
    assert (int(marker[1]), int(marker[2])) == (BIG_LINES - 10, 11)
    assert first[10] == "    10\tline 10"

    last = _read(pr_reader, pr_range, path="data/big.txt", offset_line=BIG_LINES - 1).split("\n")
    assert last[0].endswith(f"lines {BIG_LINES - 1}-{BIG_LINES} of {BIG_LINES}")
    assert last[-1] == f"  {BIG_LINES}\tline {BIG_LINES}"


def test_offset_past_the_end_is_a_tool_error(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError, match="past the end"):
        _read(pr_reader, pr_range, path="pkg/core.py", offset_line=50)


def test_binary_file_is_described_not_dumped(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    text = _read(pr_reader, pr_range, path="assets/logo.png")

    assert text == (
        f"assets/logo.png at head ({pr_range.head_sha[:12]}) is a binary file of 272 bytes; "
        "its content is not shown."
    )


def test_non_utf8_text_is_decoded_with_replacement_and_flagged(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    lines = _read(pr_reader, pr_range, path="legacy/latin1.txt").split("\n")

    assert "not valid UTF-8" in lines[0]
    assert lines[1] == "     1\tcaf\ufffd cr\ufffdme"
    assert lines[2] == "     2\tsecond line"


def test_missing_files_and_directories_are_tool_errors(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError, match="does not exist at head"):
        _read(pr_reader, pr_range, path="docs/obsolete.md")
    assert "Old docs." in _read(pr_reader, pr_range, path="docs/obsolete.md", ref="base")
    with pytest.raises(ToolError, match="is a directory") as caught:
        _read(pr_reader, pr_range, path="pkg")
    assert "core.py" in caught.value.message
