"""The refactor plan: an ordered DAG of tasks, and the code that holds a model's plan to it.

The planner (a premium-tier agent) submits tasks as JSON; :func:`check_plan`
turns them into a :class:`RefactorPlan` or a list of problems that go back to
the model verbatim (:func:`reask_message`). The rules: unique ids, known
dependencies, no cycles, every file indexed or declared new (with the nearest
real paths suggested), every file inside the run's scope, and 3-6 tasks for a
typical directive (fewer only when fewer files are involved).
"""

from __future__ import annotations

import difflib
import fnmatch
import graphlib
from collections.abc import Collection, Sequence
from typing import Any

from pydantic import BaseModel, Field, ValidationError

MIN_TASKS = 3
MAX_TASKS = 6
MAX_PROBLEMS = 12


class TaskNode(BaseModel):
    """One unit of work: what to change, in which files, after which tasks."""

    id: str = Field(min_length=1, max_length=40)
    title: str = Field(min_length=1, max_length=200)
    instructions: str = Field(min_length=1, max_length=6000)
    files: list[str] = Field(default_factory=list, description="Existing files to edit")
    new_files: list[str] = Field(default_factory=list, description="Files the task creates")
    depends_on: list[str] = Field(default_factory=list)
    critical: bool = Field(
        default=True, description="A critical task failing rolls back its subtree; others skip"
    )
    rule_ids: list[str] = Field(default_factory=list, description="Active React rules it applies")

    @property
    def all_files(self) -> list[str]:
        return [*self.files, *self.new_files]


class RefactorPlan(BaseModel):
    """The validated plan: tasks in a dependency-respecting order."""

    summary: str = ""
    tasks: list[TaskNode]
    rule_ids: list[str] = Field(default_factory=list)

    def task(self, task_id: str) -> TaskNode:
        return next(t for t in self.tasks if t.id == task_id)

    def dependents(self, task_id: str) -> list[str]:
        """Every task that depends on ``task_id``, directly or not, in plan order."""
        found: set[str] = {task_id}
        changed = True
        while changed:
            changed = False
            for task in self.tasks:
                if task.id not in found and found.intersection(task.depends_on):
                    found.add(task.id)
                    changed = True
        return [t.id for t in self.tasks if t.id in found and t.id != task_id]

    def ancestors(self, task_id: str) -> list[str]:
        """Every task ``task_id`` depends on, directly or not, in plan order."""
        found: set[str] = set()
        todo = list(self.task(task_id).depends_on)
        while todo:
            dep = todo.pop()
            if dep not in found:
                found.add(dep)
                todo.extend(self.task(dep).depends_on)
        return [t.id for t in self.tasks if t.id in found]

    def rollback_set(self, task_id: str) -> list[str]:
        """The subtree a failed critical task takes down: the chain it builds on and
        everything built on that chain (half a signature change must not ship)."""
        roots = [task_id, *self.ancestors(task_id)]
        out = set(roots)
        for root in roots:
            out.update(self.dependents(root))
        return [t.id for t in self.tasks if t.id in out]

    @property
    def files(self) -> list[str]:
        return sorted({f for t in self.tasks for f in t.all_files})


class PlanCheck(BaseModel):
    plan: RefactorPlan | None = None
    problems: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.problems


def normalise_path(path: str) -> str:
    return path.strip().removeprefix("./").replace("\\", "/")


def in_scope(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether ``path`` passes ``--include`` (any; none means all) and ``--exclude`` (none)."""
    if include and not any(_glob(path, pattern) for pattern in include):
        return False
    return not any(_glob(path, pattern) for pattern in exclude)


def _glob(path: str, pattern: str) -> bool:
    pattern = pattern.strip().removeprefix("./")
    if fnmatch.fnmatch(path, pattern):
        return True
    if pattern.startswith("**/") and fnmatch.fnmatch(path, pattern[3:]):
        return True
    # a bare directory name or prefix excludes everything below it
    bare = pattern.rstrip("/")
    return "*" not in bare and (path == bare or path.startswith(bare + "/"))


def task_bounds(file_count: int) -> tuple[int, int]:
    """3-6 tasks, fewer only when fewer files are involved."""
    return min(MIN_TASKS, max(1, file_count)), MAX_TASKS


def check_plan(
    submitted: dict[str, Any] | None,
    *,
    known_paths: Collection[str],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    active_rules: Sequence[str] = (),
) -> PlanCheck:
    """The plan the planner submitted, ordered and checked; or what is wrong with it."""
    if not submitted:
        return PlanCheck(problems=["No plan was submitted: call submit_refactor_plan."])
    raw_tasks = submitted.get("tasks")
    if not isinstance(raw_tasks, list) or not raw_tasks:
        return PlanCheck(problems=["The plan has no 'tasks' list."])
    tasks: list[TaskNode] = []
    problems: list[str] = []
    for n, raw in enumerate(raw_tasks, start=1):
        try:
            task = TaskNode.model_validate(raw)
        except ValidationError as err:
            where = ", ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()[:3]
            )
            problems.append(f"Task #{n} is malformed ({where}).")
            continue
        task.files = _dedupe(normalise_path(f) for f in task.files)
        task.new_files = _dedupe(normalise_path(f) for f in task.new_files)
        tasks.append(task)
    problems += _id_problems(tasks)
    problems += _file_problems(tasks, set(known_paths), include, exclude)
    file_count = len({f for t in tasks for f in t.all_files})
    low, high = task_bounds(file_count)
    if not low <= len(raw_tasks) <= high:
        problems.append(
            f"The plan has {len(raw_tasks)} tasks; write between {low} and {high}: "
            + ("merge small steps." if len(raw_tasks) > high else "split the work into steps.")
        )
    order, cycle_problem = _order(tasks)
    if cycle_problem:
        problems.append(cycle_problem)
    if problems:
        return PlanCheck(problems=problems[:MAX_PROBLEMS])
    rules = list(active_rules)
    for task in tasks:
        task.rule_ids = [r for r in task.rule_ids if r in rules] or list(rules)
    by_id = {t.id: t for t in tasks}
    summary = submitted.get("summary")
    return PlanCheck(
        plan=RefactorPlan(
            summary=summary if isinstance(summary, str) else "",
            tasks=[by_id[i] for i in order],
            rule_ids=rules,
        )
    )


def _dedupe(paths: Any) -> list[str]:
    return list(dict.fromkeys(p for p in paths if p))


def _id_problems(tasks: Sequence[TaskNode]) -> list[str]:
    problems: list[str] = []
    ids = [t.id for t in tasks]
    for task_id in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"Task id {task_id!r} is used twice; ids must be unique.")
    known = set(ids)
    for task in tasks:
        for dep in task.depends_on:
            if dep == task.id:
                problems.append(f"Task {task.id!r} depends on itself.")
            elif dep not in known:
                problems.append(f"Task {task.id!r} depends on unknown task {dep!r}.")
    return problems


def _file_problems(
    tasks: Sequence[TaskNode],
    known: set[str],
    include: Sequence[str],
    exclude: Sequence[str],
) -> list[str]:
    problems: list[str] = []
    declared_new = {f for t in tasks for f in t.new_files}
    for task in tasks:
        if not task.all_files:
            problems.append(f"Task {task.id!r} names no files; list the files it edits.")
        for path in task.files:
            if path in known or path in declared_new:
                continue
            near = difflib.get_close_matches(path, sorted(known), n=3, cutoff=0.6)
            hint = f" Did you mean {', '.join(near)}?" if near else ""
            problems.append(
                f"Task {task.id!r}: {path!r} is not in the repository index; use an indexed "
                f"path or declare it in new_files.{hint}"
            )
        for path in task.new_files:
            if path in known:
                problems.append(
                    f"Task {task.id!r}: {path!r} already exists; list it in files, not new_files."
                )
        for path in task.all_files:
            if not in_scope(path, include, exclude):
                problems.append(
                    f"Task {task.id!r}: {path!r} is outside the run's --include/--exclude scope."
                )
    return problems


def _order(tasks: Sequence[TaskNode]) -> tuple[list[str], str | None]:
    """Plan order that respects dependencies (ties keep the planner's order), or the cycle."""
    position = {t.id: n for n, t in enumerate(tasks)}
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for task in tasks:
        sorter.add(task.id, *[d for d in task.depends_on if d in position and d != task.id])
    try:
        sorter.prepare()
    except graphlib.CycleError as err:
        cycle = " -> ".join(str(x) for x in err.args[1])
        return [], f"The dependencies form a cycle ({cycle}); a task cannot wait for itself."
    order: list[str] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=lambda i: position.get(i, 0))
        order.extend(ready)
        sorter.done(*ready)
    return order, None


def reask_message(problems: Sequence[str], attempt: int, attempts: int) -> str:
    """What the planner is told when its plan is refused (attempt ``attempt`` of ``attempts``)."""
    lines = "\n".join(f"- {p}" for p in problems)
    return (
        f"Your plan was refused by the validator (attempt {attempt} of {attempts}):\n{lines}\n\n"
        "Fix every point and call submit_refactor_plan again with the whole corrected plan. "
        "Use only paths from the repository index, or declare new files in new_files."
    )
