"""The refactor plan: a DAG of steps, and the code that holds a model's plan to it.

The planner (a premium-tier agent) submits a :class:`PlanSubmission`; the tool's
input schema is generated from these models (:func:`plan_tool_schema`), so every
rule the validator enforces is one the model was shown. :func:`check_plan` turns
a submission into a :class:`RefactorPlan`, a "nothing to do" with the planner's
reason, or a list of problems that go back to the model verbatim
(:func:`reask_message`). The rules: unique ids, known dependencies, no cycles,
every file indexed or declared new (with the nearest real paths suggested), every
file inside the run's scope, at least one file and at most ``MAX_FILES_PER_TASK``
edited (and as many created) per step. The number of steps is bounded only by
``MAX_TASKS``: a rename of one function may be one step, a directive over 300
files as many as it needs. Titles and the summary are cosmetic: cut to length,
never refused.
"""

from __future__ import annotations

import copy
import difflib
import fnmatch
import graphlib
from collections.abc import Collection, Sequence
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

MAX_TASKS = 400
MAX_FILES_PER_TASK = 40
MAX_PROBLEMS = 12
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
TITLE_CHARS = 200
SUMMARY_CHARS = 2_000
REASON_CHARS = 2_000


def _cut(value: Any, limit: int) -> Any:
    """A cosmetic text cut to ``limit`` characters (other values pass to validation)."""
    if not isinstance(value, str):
        return value
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class TaskNode(BaseModel):
    """One step: what to change, in which files, after which steps."""

    id: str = Field(
        min_length=1,
        max_length=40,
        pattern=ID_PATTERN,
        description="Unique, short and stable: letters, digits, '.', '_', '-' (e.g. 'callers')",
    )
    title: str = Field(
        default="",
        description=f"What the step achieves, one line (cut to {TITLE_CHARS} characters)",
    )
    instructions: str = Field(
        min_length=1, max_length=8000, description="Precise guidance for the editor"
    )
    files: list[str] = Field(
        default_factory=list,
        max_length=MAX_FILES_PER_TASK,
        description="Existing paths from the index that the step edits, inside the run's scope",
    )
    new_files: list[str] = Field(
        default_factory=list,
        max_length=MAX_FILES_PER_TASK,
        description="Paths the step creates (never existing ones)",
    )
    depends_on: list[str] = Field(
        default_factory=list,
        description="Ids of other steps of this plan that must finish first (no cycles)",
    )
    critical: bool = Field(
        default=True, description="A critical task failing rolls back its subtree; others skip"
    )
    rule_ids: list[str] = Field(default_factory=list, description="Active React rules it applies")

    @field_validator("title", mode="before")
    @classmethod
    def _short_title(cls, value: Any) -> Any:
        return _cut(value, TITLE_CHARS)

    @property
    def all_files(self) -> list[str]:
        return [*self.files, *self.new_files]

    @property
    def label(self) -> str:
        return self.title or self.id


class PlanSubmission(BaseModel):
    """What ``submit_refactor_plan`` takes: the steps, or that there is nothing to do."""

    summary: str = Field(
        default="", description=f"The approach, one paragraph (cut to {SUMMARY_CHARS} characters)"
    )
    tasks: list[TaskNode] = Field(
        default_factory=list,
        max_length=MAX_TASKS,
        description="The steps, as many as the work needs (one is fine); empty only with "
        "nothing_to_do",
    )
    nothing_to_do: str = Field(
        default="",
        max_length=REASON_CHARS,
        description="Set instead of tasks when the repository already does what the directive "
        "asks, or it asks for nothing that can change: say why",
    )

    @field_validator("summary", mode="before")
    @classmethod
    def _short_summary(cls, value: Any) -> Any:
        return _cut(value, SUMMARY_CHARS)


def plan_tool_schema() -> dict[str, Any]:
    """The input schema of ``submit_refactor_plan``, from :class:`PlanSubmission`: every
    length, count and pattern the validator enforces, plus the two either-or rules (a step
    names at least one file; a plan has steps or a reason for none)."""
    raw = PlanSubmission.model_json_schema()
    defs = raw.pop("$defs", {})

    def clean(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return clean(copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]]))
            return {k: clean(v) for k, v in node.items() if k != "title" or "type" not in node}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    schema: dict[str, Any] = clean(raw)
    task = schema["properties"]["tasks"]["items"]
    task["properties"]["title"]["type"] = "string"
    task["required"] = ["id", "title", "instructions", "files", "depends_on"]
    task["anyOf"] = [
        {"properties": {"files": {"minItems": 1}}},
        {"properties": {"new_files": {"minItems": 1}}, "required": ["new_files"]},
    ]
    schema["required"] = ["summary"]
    schema["anyOf"] = [
        {"properties": {"tasks": {"minItems": 1}}, "required": ["tasks"]},
        {"properties": {"nothing_to_do": {"minLength": 1}}, "required": ["nothing_to_do"]},
    ]
    return schema


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
    nothing_to_do: str = Field(default="", description="The planner's reason for no change")

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


def check_plan(
    submitted: dict[str, Any] | None,
    *,
    known_paths: Collection[str],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    active_rules: Sequence[str] = (),
) -> PlanCheck:
    """The plan the planner submitted, ordered and checked; its reason for changing nothing;
    or what is wrong with it."""
    if not submitted:
        return PlanCheck(problems=["No plan was submitted: call submit_refactor_plan."])
    problems: list[str] = []
    raw_tasks = submitted.get("tasks")
    if raw_tasks is None:
        raw_tasks = []
    if not isinstance(raw_tasks, list):
        return PlanCheck(problems=["'tasks' must be a list of steps."])
    reason = submitted.get("nothing_to_do")
    if isinstance(reason, str) and reason.strip() and not raw_tasks:
        return PlanCheck(nothing_to_do=_cut(reason, REASON_CHARS))
    if not raw_tasks:
        return PlanCheck(
            problems=[
                "The plan has no steps: list them in 'tasks', or say in 'nothing_to_do' "
                "why nothing needs to change."
            ]
        )
    if len(raw_tasks) > MAX_TASKS:
        problems.append(f"The plan has {len(raw_tasks)} steps; at most {MAX_TASKS} are taken.")
    tasks: list[TaskNode] = []
    for n, raw in enumerate(raw_tasks[:MAX_TASKS], start=1):
        try:
            task = TaskNode.model_validate(raw)
        except ValidationError as err:
            where = "; ".join(_explain(e) for e in err.errors()[:3])
            name = raw.get("id") if isinstance(raw, dict) else None
            label = f"Step {name!r} (#{n})" if isinstance(name, str) and name else f"Step #{n}"
            problems.append(f"{label} is malformed ({where}).")
            continue
        task.files = _dedupe(normalise_path(f) for f in task.files)
        task.new_files = _dedupe(normalise_path(f) for f in task.new_files)
        tasks.append(task)
    problems += _id_problems(tasks)
    problems += _file_problems(tasks, set(known_paths), include, exclude)
    order, cycle_problem = _order(tasks)
    if cycle_problem:
        problems.append(cycle_problem)
    if problems:
        return PlanCheck(problems=problems[:MAX_PROBLEMS])
    rules = list(active_rules)
    for task in tasks:
        task.rule_ids = [r for r in task.rule_ids if r in rules] or list(rules)
    by_id = {t.id: t for t in tasks}
    summary = _cut(submitted.get("summary"), SUMMARY_CHARS)
    return PlanCheck(
        plan=RefactorPlan(
            summary=summary if isinstance(summary, str) else "",
            tasks=[by_id[i] for i in order],
            rule_ids=rules,
        )
    )


BATCH_HINT = (
    f"at most {MAX_FILES_PER_TASK} per step: split it into batches (steps over disjoint files "
    "run side by side)"
)


def _explain(error: Any) -> str:
    where = ".".join(str(p) for p in error["loc"])
    if error["type"] == "too_long" and error["loc"][0] in ("files", "new_files"):
        return f"{where}: {BATCH_HINT}"
    return f"{where}: {error['msg']}"


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
        "Use only paths from the repository index, or declare new files in new_files. Any "
        "number of steps is fine: one, or as many as the work needs."
    )
