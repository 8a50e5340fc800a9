"""Stacked PRs read from the loopback GitHub over a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

from activities.github.pr_tools import stack_plan
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.stack import StackAction
from tests.support.fake_github import FakeGitHub

IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _commit(work: Path, name: str) -> str:
    (work / f"{name}.txt").write_text(name)
    _git(work, "add", ".")
    _git(work, *IDENTITY, "commit", "-qm", name)
    return _git(work, "rev-parse", "HEAD")


def _stacked_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main ← feat-a ← feat-b ← feat-c, then feat-a gains a commit feat-b lacks."""
    work, bare = tmp_path / "work", tmp_path / "origin.git"
    work.mkdir()
    _git(tmp_path, "init", "-q", "--bare", "--initial-branch=main", str(bare))
    _git(work, "init", "-q", "--initial-branch=main")
    heads = {"main": _commit(work, "base")}
    for branch, parent in (("feat-a", "main"), ("feat-b", "feat-a"), ("feat-c", "feat-b")):
        _git(work, "checkout", "-q", "-b", branch, parent)
        heads[branch] = _commit(work, branch)
    _git(work, "checkout", "-q", "feat-a")
    heads["feat-a"] = _commit(work, "review-fix")
    _git(work, "push", "-q", str(bare), "main", "feat-a", "feat-b", "feat-c")
    return bare, heads


def _seed(fake: FakeGitHub, bare: Path, heads: dict[str, str], **first: object) -> None:
    for number, (head, base) in enumerate(
        (("feat-a", "main"), ("feat-b", "feat-a"), ("feat-c", "feat-b")), start=11
    ):
        extra = first if number == 11 else {}
        fake.add_pull_request(
            "octo-org",
            "service",
            number,
            bare,
            base,
            head,
            heads[base],
            heads[head],
            f"Step {number - 10}",
            **extra,  # type: ignore[arg-type]
        )
    fake.add_pull_request(
        "octo-org", "service", 20, bare, "main", "unrelated", heads["main"], heads["main"]
    )


def test_parent_with_new_commits_means_rebase_bottom_up(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    bare, heads = _stacked_repo(tmp_path)
    _seed(fake_github, bare, heads)
    fake_github.add_check_run("octo-org", "service", heads["feat-a"], "tests", conclusion="failure")
    fake_github.add_review_thread("octo-org", "service", 13, "c.py", 1, [("alice", "why?")])

    plan = stack_plan(PullRequestRef(owner="octo-org", repo="service", number=12))

    assert plan.stacked
    assert plan.message == "#12 is PR 2 of 3 in the stack #11 → #12 → #13; 2 PR(s) need a rebase."
    assert [(e.pull.number, e.action, e.onto) for e in plan.entries] == [
        (11, StackAction.none, None),
        (12, StackAction.rebase, "feat-a"),
        (13, StackAction.rebase, "feat-b"),
    ]
    assert plan.entries[1].pull.behind_by == 1
    assert plan.entries[1].reason == "feat-a has 1 commit this branch lacks"
    assert plan.entries[1].commands == [
        "git fetch origin",
        "git rebase origin/feat-a feat-b",
        "git push --force-with-lease origin feat-b",
    ]
    assert plan.entries[0].readiness.blockers == ["failing checks: tests"]
    assert "1 unresolved review thread" in plan.entries[2].readiness.blockers


def test_merged_bottom_pr_means_retarget_onto_its_base(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    bare, heads = _stacked_repo(tmp_path)
    _seed(fake_github, bare, heads, merged=True)

    plan = stack_plan(PullRequestRef(owner="octo-org", repo="service", number=13))

    assert [(e.pull.number, e.pull.merged, e.action) for e in plan.entries] == [
        (11, True, StackAction.none),
        (12, False, StackAction.retarget),
        (13, False, StackAction.rebase),
    ]
    assert plan.entries[1].commands[1] == f"git rebase --onto origin/main {heads['feat-a']} feat-b"
    assert plan.entries[1].commands[-1] == "gh pr edit 12 --base main"
    assert plan.steps[-1] == "Merge bottom-up: #12, #13, one at a time."


def test_a_pr_on_main_with_nothing_above_is_not_stacked(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    bare, heads = _stacked_repo(tmp_path)
    _seed(fake_github, bare, heads)

    plan = stack_plan(PullRequestRef(owner="octo-org", repo="service", number=20))

    assert not plan.stacked
    assert plan.message.startswith("#20 is not stacked: its base 'main'")
    assert plan.entries[0].readiness.ready
