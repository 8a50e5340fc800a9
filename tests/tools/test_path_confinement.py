"""Every path argument stays inside the repository, symlinks included."""

from __future__ import annotations

import pytest

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import ToolError, run_tool
from prflow.tools.paths import clean_glob, clean_repo_path
from tests.support.fixtures_git import CORE_HEAD


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute"),
        ("C:\\Windows\\win.ini", "absolute"),
        ("~/.ssh/id_rsa", "absolute"),
        ("../outside/secret.txt", "escapes"),
        ("pkg/../../outside/secret.txt", "escapes"),
        ("..", "escapes"),
        ("", "empty"),
        (".", "root"),
    ],
)
def test_escaping_paths_are_refused(path: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        clean_repo_path(path)


def test_harmless_spellings_are_normalised() -> None:
    assert clean_repo_path("./pkg//core.py") == "pkg/core.py"
    assert clean_repo_path("pkg/sub/../core.py") == "pkg/core.py"
    assert clean_repo_path("pkg\\core.py") == "pkg/core.py"


def test_pathspec_magic_globs_are_refused() -> None:
    with pytest.raises(ToolError, match="magic"):
        clean_glob(":(top)*.py")
    assert clean_glob("src/*.ts") == "src/*.ts"


def test_symlink_pointing_outside_cannot_be_read(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError, match="outside the repository") as caught:
        run_tool(pr_reader, pr_range, "read_file_at_ref", {"path": "links/escape.txt"})

    assert "top secret" not in caught.value.message


def test_symlink_inside_the_repository_reads_its_target(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    text = run_tool(pr_reader, pr_range, "read_file_at_ref", {"path": "links/core_link.py"}).text

    assert text.split("\n")[1:] == [
        f"{i:>6}\t{line}" for i, line in enumerate(CORE_HEAD.splitlines(), start=1)
    ]


@pytest.mark.parametrize(
    "tool", ["read_file_at_ref", "git_diff", "find_importers", "list_test_files"]
)
def test_every_path_taking_tool_refuses_escapes(
    tool: str, pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    key = "file" if tool == "git_diff" else "path"

    with pytest.raises(ToolError, match="escapes the repository"):
        run_tool(pr_reader, pr_range, tool, {key: "../outside/secret.txt"})
