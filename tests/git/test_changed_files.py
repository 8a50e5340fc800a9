"""Changed files of a pull request range, as git reports them."""

from __future__ import annotations

from prflow.changes import ChangedFile, FileStatus
from prflow.git.repo import changed_files, resolve_range
from prflow.repo_models import RepoSpec
from tests.support.fixtures_git import BIG_LINES, GitRepoBuilder, PullRequestRepo


def _by_path(files: list[ChangedFile]) -> dict[str, ChangedFile]:
    return {f.path: f for f in files}


def test_every_kind_of_change_is_reported(pr_repo: PullRequestRepo) -> None:
    files = _by_path(
        changed_files(resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature"))
    )

    assert files["pkg/core.py"].status == FileStatus.modified
    assert (files["pkg/core.py"].additions, files["pkg/core.py"].deletions) == (6, 2)
    assert files["pkg/feature.py"].status == FileStatus.added
    assert files["docs/obsolete.md"].status == FileStatus.deleted
    assert files["docs/obsolete.md"].deletions == 1
    renamed = files["pkg/new_name.py"]
    assert (renamed.status, renamed.old_path) == (FileStatus.renamed, "pkg/old_name.py")
    assert (renamed.additions, renamed.deletions) == (0, 0)
    assert "pkg/old_name.py" not in files
    assert files["data/big.txt"].additions == BIG_LINES
    assert files["links/core_link.py"].status == FileStatus.added


def test_binary_files_are_flagged_without_line_counts(pr_repo: PullRequestRepo) -> None:
    files = _by_path(
        changed_files(resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature"))
    )

    logo = files["assets/logo.png"]
    assert logo.binary
    assert (logo.additions, logo.deletions) == (0, 0)
    latin1 = files["legacy/latin1.txt"]
    assert not latin1.binary
    assert latin1.additions == 2


def test_changes_made_on_base_after_the_fork_are_not_part_of_the_pr(
    pr_repo: PullRequestRepo,
) -> None:
    files = _by_path(
        changed_files(resolve_range(RepoSpec(location=str(pr_repo.path)), "main", "feature"))
    )

    assert "README.md" not in files


def test_odd_file_names_survive(git_repo: GitRepoBuilder, prflow_cache: object) -> None:
    git_repo.write("plain.txt", "x\n")
    git_repo.commit("base")
    git_repo.branch("topic")
    git_repo.write("dir with space/ünïcode\tname.txt", "y\n")
    git_repo.commit("odd name")

    files = changed_files(resolve_range(RepoSpec(location=str(git_repo.path)), "main", "topic"))

    assert [f.path for f in files] == ["dir with space/ünïcode\tname.txt"]
    assert files[0].additions == 1


def test_a_renamed_and_edited_file_keeps_its_line_counts_and_odd_names_parse(
    git_repo: GitRepoBuilder, prflow_cache: object
) -> None:
    # Statuses and line counts come from one `git diff --raw --numstat`: a rename's counts
    # and a name that looks like a raw record's header (":…") must land on the right file.
    body = "".join(f"line {i}\n" for i in range(40))
    git_repo.write("pkg/old_name.py", body)
    git_repo.write(":colon.txt", "a\n")
    git_repo.commit("base")
    git_repo.branch("topic")
    git_repo.move("pkg/old_name.py", "pkg/new_name.py")
    git_repo.write("pkg/new_name.py", body + "added 1\nadded 2\n")
    git_repo.write(":colon.txt", "a\nb\nc\n")
    git_repo.commit("rename with edits")

    files = _by_path(
        changed_files(resolve_range(RepoSpec(location=str(git_repo.path)), "main", "topic"))
    )

    renamed = files["pkg/new_name.py"]
    assert (renamed.status, renamed.old_path) == (FileStatus.renamed, "pkg/old_name.py")
    assert (renamed.additions, renamed.deletions) == (2, 0)
    colon = files[":colon.txt"]
    assert (colon.status, colon.additions, colon.deletions) == (FileStatus.modified, 2, 0)
    assert set(files) == {"pkg/new_name.py", ":colon.txt"}
