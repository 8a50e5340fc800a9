"""Stacked pull requests: the chain, what to rebase onto what and in which order.

A PR is stacked when its base branch is another PR's head branch. When a
lower PR merges or gains commits, every PR above it must be rebased, bottom
first, and a PR whose parent merged must also be retargeted to the parent's
base. This module decides all of that from the PRs' refs and counts alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

from prflow.github_models import PullSummary
from prflow.pr_tools.checks import ChecksOverview
from prflow.pr_tools.merge_readiness import Readiness, merge_readiness


class StackAction(StrEnum):
    none = "none"
    rebase = "rebase"
    retarget = "retarget"


class StackEntry(BaseModel):
    pull: PullSummary
    position: int = Field(description="1 is the bottom of the stack")
    parent: int | None = Field(description="The PR whose head branch this PR's base is")
    action: StackAction
    onto: str | None = Field(description="Branch to rebase onto (and retarget to)")
    reason: str
    commands: list[str]
    readiness: Readiness


class StackPlan(BaseModel):
    pr: str
    stacked: bool
    message: str
    entries: list[StackEntry] = Field(description="Bottom of the stack first")
    steps: list[str] = Field(description="What to do, in order")


def stack_chain(pulls: Sequence[PullSummary], target: int) -> list[PullSummary]:
    """``target``'s stack, bottom first: its ancestors (stopping at a closed one), then the
    open PRs built on it, depth first. PRs from forks never stack onto this repository's."""
    by_number = {p.number: p for p in pulls}
    start = by_number[target]
    below: list[PullSummary] = []
    current = start
    while (parent := _parent_of(current, pulls)) is not None and parent not in below:
        below.insert(0, parent)
        if parent.state != "open":
            break
        current = parent
    above: list[PullSummary] = []
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        children = [
            p
            for p in pulls
            if p.state == "open" and p.base_ref == node.head_ref and _same_repo(p, node)
        ]
        for child in sorted(children, key=lambda p: p.number):
            if child not in above and child is not start and child not in below:
                above.append(child)
                frontier.append(child)
    return [*below, start, *above]


def _same_repo(child: PullSummary, parent: PullSummary) -> bool:
    return child.head_repo is None or child.head_repo == parent.head_repo


def _parent_of(pull: PullSummary, pulls: Sequence[PullSummary]) -> PullSummary | None:
    """The PR whose head is ``pull``'s base: an open one if any, else the latest merged."""
    candidates = [
        p
        for p in pulls
        if p.head_ref == pull.base_ref and p.number != pull.number and _same_repo(pull, p)
    ]
    candidates.sort(key=lambda p: (p.state == "open", p.merged, p.number))
    return candidates[-1] if candidates else None


def plan_stack(
    slug: str,
    pulls: Sequence[PullSummary],
    target: int,
    *,
    checks: Mapping[int, ChecksOverview] | None = None,
    threads: Mapping[int, int] | None = None,
) -> StackPlan:
    """The rebase plan and merge readiness for ``target``'s stack."""
    chain = stack_chain(pulls, target)
    entries: list[StackEntry] = []
    moved: set[str] = set()  # head branches that will be force-pushed by the plan
    for position, pull in enumerate(chain, start=1):
        parent = _parent_of(pull, chain) if position > 1 else None
        action, onto, reason = _action(pull, parent, moved)
        if action != StackAction.none:
            moved.add(pull.head_ref)
        stacked_on = parent.number if parent is not None and parent.state == "open" else None
        entries.append(
            StackEntry(
                pull=pull,
                position=position,
                parent=parent.number if parent else None,
                action=action,
                onto=onto,
                reason=reason,
                commands=_commands(pull, parent, action, onto),
                readiness=merge_readiness(
                    pull,
                    checks=(checks or {}).get(pull.number),
                    unresolved_threads=(threads or {}).get(pull.number),
                    stacked_on=stacked_on,
                    needs_rebase=action != StackAction.none and pull.state == "open",
                ),
            )
        )
    stacked = len(chain) > 1
    return StackPlan(
        pr=slug,
        stacked=stacked,
        message=_message(chain, target, entries) if stacked else _not_stacked(chain[0]),
        entries=entries,
        steps=_steps(entries),
    )


def _action(
    pull: PullSummary, parent: PullSummary | None, moved: set[str]
) -> tuple[StackAction, str | None, str]:
    if pull.state != "open":
        verb = "merged" if pull.merged else "closed"
        return StackAction.none, None, f"{verb}; nothing to do"
    if parent is not None and parent.state != "open":
        verb = "was merged" if parent.merged else "was closed without merging"
        return (
            StackAction.retarget,
            parent.base_ref,
            f"its base #{parent.number} ({parent.head_ref}) {verb}: move it onto {parent.base_ref}",
        )
    if pull.base_ref in moved:
        return (
            StackAction.rebase,
            pull.base_ref,
            f"{pull.base_ref} is rebased by an earlier step: rebase onto its new tip",
        )
    if pull.behind_by:
        commits = "commit" if pull.behind_by == 1 else "commits"
        return (
            StackAction.rebase,
            pull.base_ref,
            f"{pull.base_ref} has {pull.behind_by} {commits} this branch lacks",
        )
    return StackAction.none, None, f"up to date with {pull.base_ref}"


def _commands(
    pull: PullSummary, parent: PullSummary | None, action: StackAction, onto: str | None
) -> list[str]:
    if action == StackAction.none or onto is None:
        return []
    branch = pull.head_ref
    if action == StackAction.retarget and parent is not None:
        return [
            "git fetch origin",
            f"git rebase --onto origin/{onto} {parent.head_sha} {branch}",
            f"git push --force-with-lease origin {branch}",
            f"gh pr edit {pull.number} --base {onto}",
        ]
    return [
        "git fetch origin",
        f"git rebase origin/{onto} {branch}",
        f"git push --force-with-lease origin {branch}",
    ]


def _not_stacked(pull: PullSummary) -> str:
    return (
        f"#{pull.number} is not stacked: its base {pull.base_ref!r} is no other PR's head "
        f"branch, and no open PR targets its head {pull.head_ref!r}."
    )


def _message(chain: Sequence[PullSummary], target: int, entries: Sequence[StackEntry]) -> str:
    order = " → ".join(f"#{p.number}" for p in chain)
    todo = sum(1 for e in entries if e.action != StackAction.none)
    position = next(e.position for e in entries if e.pull.number == target)
    work = f"{todo} PR(s) need a rebase" if todo else "no rebase needed"
    return f"#{target} is PR {position} of {len(chain)} in the stack {order}; {work}."


def _steps(entries: Sequence[StackEntry]) -> list[str]:
    steps = [
        f"{'Retarget and rebase' if e.action == StackAction.retarget else 'Rebase'} "
        f"#{e.pull.number} ({e.pull.head_ref}) onto {e.onto}: {e.reason}."
        for e in entries
        if e.action != StackAction.none
    ]
    open_order = [f"#{e.pull.number}" for e in entries if e.pull.state == "open"]
    if len(open_order) > 1:
        steps.append(f"Merge bottom-up: {', '.join(open_order)}, one at a time.")
    return steps


BEHIND_QUERY = """
query PrflowBranchBehind($owner: String!, $name: String!, $base: String!, $head: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $base) {
      compare(headRef: $head) { behindBy aheadBy status }
    }
  }
}
"""


def behind_by(data: Mapping[str, object]) -> int | None:
    """Commits on the base branch that the head lacks, from a :data:`BEHIND_QUERY` answer;
    None when either branch no longer exists."""
    node: object = data.get("data")
    for key in ("repository", "ref", "compare", "behindBy"):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, int) else None
