"""Stacked PRs: the chain, rebase order with commands, and merge readiness."""

from __future__ import annotations

from prflow.github_models import PullSummary
from prflow.pr_tools.checks import CheckInfo, CheckKind, overview
from prflow.pr_tools.stack import StackAction, plan_stack, stack_chain


def _pull(number: int, head: str, base: str, **extra: object) -> PullSummary:
    fields: dict[str, object] = {
        "number": number,
        "title": f"PR {number}",
        "url": f"https://example.invalid/pull/{number}",
        "state": "open",
        "merged": False,
        "draft": False,
        "base_ref": base,
        "head_ref": head,
        "head_sha": f"{number:040d}",
        "head_repo": "o/r",
        "mergeable": True,
        "mergeable_state": "clean",
        "behind_by": 0,
    }
    fields.update(extra)
    return PullSummary.model_validate(fields)


def test_the_chain_runs_from_the_bottom_through_every_pr_built_on_the_target() -> None:
    pulls = [
        _pull(3, "feat-c", "feat-b"),
        _pull(1, "feat-a", "main"),
        _pull(2, "feat-b", "feat-a"),
        _pull(9, "other", "main"),
        _pull(7, "fork-d", "feat-c", head_repo="someone/r"),
    ]
    assert [p.number for p in stack_chain(pulls, 2)] == [1, 2, 3]


def test_a_pr_on_the_default_branch_with_nothing_above_is_not_stacked() -> None:
    plan = plan_stack("o/r#9", [_pull(9, "other", "main")], 9)
    assert not plan.stacked
    assert plan.message == (
        "#9 is not stacked: its base 'main' is no other PR's head branch, and no open PR "
        "targets its head 'other'."
    )
    assert plan.steps == []
    assert plan.entries[0].readiness.ready


def test_merged_parent_means_retarget_then_every_pr_above_rebases_in_order() -> None:
    pulls = [
        _pull(1, "feat-a", "main", state="closed", merged=True),
        _pull(2, "feat-b", "feat-a"),
        _pull(3, "feat-c", "feat-b"),
    ]
    plan = plan_stack("o/r#3", pulls, 3)

    assert [(e.pull.number, e.action, e.onto) for e in plan.entries] == [
        (1, StackAction.none, None),
        (2, StackAction.retarget, "main"),
        (3, StackAction.rebase, "feat-b"),
    ]
    assert plan.entries[1].commands == [
        "git fetch origin",
        f"git rebase --onto origin/main {1:040d} feat-b",
        "git push --force-with-lease origin feat-b",
        "gh pr edit 2 --base main",
    ]
    assert plan.entries[2].commands[1] == "git rebase origin/feat-b feat-c"
    assert plan.steps[0].startswith("Retarget and rebase #2 (feat-b) onto main")
    assert plan.steps[1].startswith("Rebase #3 (feat-c) onto feat-b")
    assert plan.steps[2] == "Merge bottom-up: #2, #3, one at a time."
    assert plan.message == "#3 is PR 3 of 3 in the stack #1 → #2 → #3; 2 PR(s) need a rebase."


def test_readiness_names_every_blocker() -> None:
    failing = overview(
        [
            CheckInfo(
                name="tests", kind=CheckKind.check_run, status="completed", conclusion="failure"
            )
        ]
    )
    pulls = [
        _pull(1, "feat-a", "main", behind_by=0),
        _pull(2, "feat-b", "feat-a", behind_by=2, draft=True, mergeable=False),
    ]
    plan = plan_stack("o/r#2", pulls, 2, checks={2: failing}, threads={1: 0, 2: 1})

    bottom, top = plan.entries
    assert bottom.readiness.ready and bottom.action == StackAction.none
    assert top.action == StackAction.rebase
    assert top.reason == "feat-a has 2 commits this branch lacks"
    assert top.readiness.blockers == [
        "draft: mark it ready for review",
        "stacked on #1: merge that PR first",
        "its base moved: rebase it (see the plan)",
        "conflicts with feat-a: rebase or merge feat-a in",
        "failing checks: tests",
        "1 unresolved review thread",
    ]
