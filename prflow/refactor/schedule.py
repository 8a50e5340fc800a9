"""Which tasks of the DAG run next: in plan order, after their dependencies, files disjoint.

Pure, so the workflow decides the same way on every replay. A task whose
dependency was skipped or rolled back cannot build on it and is skipped too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from prflow.refactor.plan import RefactorPlan


class TaskStatus(StrEnum):
    pending = "pending"
    running = "running"
    done = "done"
    skipped = "skipped"
    rolled_back = "rolled_back"


FINISHED = frozenset({TaskStatus.done, TaskStatus.skipped, TaskStatus.rolled_back})


def blocked(plan: RefactorPlan, states: Mapping[str, TaskStatus]) -> dict[str, str]:
    """Pending tasks that can never run because a dependency did not finish as done."""
    out: dict[str, str] = {}
    for task in plan.tasks:
        if states.get(task.id, TaskStatus.pending) != TaskStatus.pending:
            continue
        for dep in task.depends_on:
            if states.get(dep) in (TaskStatus.skipped, TaskStatus.rolled_back) or dep in out:
                out[task.id] = f"depends on {dep}, which did not complete"
                break
    return out


def ready(plan: RefactorPlan, states: Mapping[str, TaskStatus], limit: int) -> list[str]:
    """Up to ``limit`` minus the running count of pending tasks to start now: dependencies
    done, and no file shared with a running task or with another task picked here."""
    running = [t for t in plan.tasks if states.get(t.id) == TaskStatus.running]
    busy = {f for t in running for f in t.all_files}
    room = limit - len(running)
    picked: list[str] = []
    for task in plan.tasks:
        if room <= 0:
            break
        if states.get(task.id, TaskStatus.pending) != TaskStatus.pending:
            continue
        if any(states.get(dep) != TaskStatus.done for dep in task.depends_on):
            continue
        files = set(task.all_files)
        if files & busy:
            continue
        picked.append(task.id)
        busy |= files
        room -= 1
    return picked


def all_finished(plan: RefactorPlan, states: Mapping[str, TaskStatus]) -> bool:
    return all(states.get(t.id) in FINISHED for t in plan.tasks)


def given_up_with(
    plan: RefactorPlan,
    states: Mapping[str, TaskStatus],
    waits_for: Mapping[str, Sequence[str]],
    gone: Sequence[str],
) -> list[str]:
    """The steps that must go with the steps ``gone``: every step that waits for one of
    them (its edits need theirs), with what it takes down itself (a critical step its
    chain, any step those built on it), until nothing more follows. Plan order; the
    steps already skipped or rolled back are left out."""
    out: set[str] = set(gone)
    changed = True
    while changed:
        changed = False
        for task in plan.tasks:
            if task.id in out or not out.intersection(waits_for.get(task.id, ())):
                continue
            taken = plan.rollback_set(task.id) if task.critical else [task.id]
            taken = [*taken, *plan.dependents(task.id)]
            for tid in taken:
                if tid not in out:
                    out.add(tid)
                    changed = True
    finished = (TaskStatus.skipped, TaskStatus.rolled_back)
    return [t.id for t in plan.tasks if t.id in out and states.get(t.id) not in finished]
