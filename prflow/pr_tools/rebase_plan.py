"""Rebasing a stacked PR after its base was squash-merged.

A squash merge puts the parent PR's work on the target branch as one new commit, so the
child branch still carries the parent's original commits, which the target branch does
not contain. The child's own commits are those after the parent's last head
(``parent_head..child_head``); they are replayed onto the target branch with
``git rebase --onto``, and the PR is retargeted there. A commit whose change is already
on the new base (``git cherry`` marks it) is dropped by the rebase and listed as such.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class PlannedCommit(BaseModel):
    sha: str
    subject: str
    in_new_base: bool = Field(description="An equal change is already on the new base")


class RebasePlan(BaseModel):
    pr: str
    branch: str = Field(description="The PR's head branch")
    base_ref: str = Field(description="The PR's base branch now")
    onto: str = Field(description="The branch to rebase onto")
    squash_merged_base: int | None = Field(
        description="The parent PR whose squash merge this rebase follows, if any"
    )
    upstream: str = Field(description="Commits up to this one are not replayed")
    commits: list[PlannedCommit] = Field(description="The PR's own commits, oldest first")
    message: str
    commands: list[str]


def rebase_plan(
    *,
    pr: str,
    number: int,
    branch: str,
    base_ref: str,
    onto: str,
    upstream: str,
    parent: int | None,
    parent_merged: bool,
    commits: list[PlannedCommit],
    fork_remote: bool,
) -> RebasePlan:
    """The commits to replay and the commands, in order.

    ``upstream``: the parent's last head when the parent merged, else the base branch's
    tip; ``fork_remote``: the head branch lives in a fork (push there, not to origin).
    """
    replay = [c for c in commits if not c.in_new_base]
    remote = "<fork-remote>" if fork_remote else "origin"
    if parent is not None and parent_merged:
        how = "squash-merged into" if onto != base_ref else "merged into"
        message = (
            f"{pr}: its base #{parent} was {how} {onto}; replay {len(replay)} of its "
            f"{len(commits)} commit(s) onto {onto}"
        )
        commands = [
            "git fetch origin",
            f"git rebase --onto origin/{onto} {upstream} {branch}",
            f"git push --force-with-lease {remote} {branch}",
        ]
        if onto != base_ref:
            commands.append(f"gh pr edit {number} --base {onto}")
    else:
        message = f"{pr}: rebase its {len(commits)} commit(s) onto the tip of {onto}"
        if parent is not None:
            message += f" (its base #{parent} is still open: rebase again after it merges)"
        commands = [
            "git fetch origin",
            f"git rebase origin/{onto} {branch}",
            f"git push --force-with-lease {remote} {branch}",
        ]
    dropped = len(commits) - len(replay)
    if dropped:
        message += f"; {dropped} already on {onto} will be dropped by the rebase"
    return RebasePlan(
        pr=pr,
        branch=branch,
        base_ref=base_ref,
        onto=onto,
        squash_merged_base=parent if parent_merged else None,
        upstream=upstream,
        commits=commits,
        message=message + ".",
        commands=commands,
    )
