"""What the planner and the executors are told, and the tools they end with.

Pure text builders: the activities feed them the index, the retrieved
context and the task; the prompts' fixed parts live in ``prflow/prompts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

from prflow.llm.messages import ToolSpec
from prflow.refactor.plan import RefactorPlan, TaskNode, plan_tool_schema
from prflow.refactor.react_rules import describe

MAX_INDEX_PATHS = 1500
MAX_CONTEXT_CHARS = 24_000
MAX_RELATED_CHARS = 1_500

SUBMIT_PLAN = ToolSpec(
    name="submit_refactor_plan",
    description=(
        "Submit the refactor plan: the steps (a DAG: each with its files and the steps it "
        "waits for), as many as the work needs; or, with nothing_to_do, why nothing needs "
        "to change."
    ),
    input_schema=plan_tool_schema(),
)

UNCHANGED_REASON_CHARS = 500

FINISH_TASK = ToolSpec(
    name="finish_task",
    description=(
        "Say the task is finished (done: true) or cannot be done (done: false). Every file the "
        "step lists to edit must be changed, or named in unchanged with the reason it needs "
        "no change; a listed file left unchanged without a reason fails the attempt."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "done": {"type": "boolean"},
            "summary": {"type": "string"},
            "unchanged": {
                "type": "array",
                "description": "Files of the step's list that need no change, each with why",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "minLength": 1},
                        "reason": {
                            "type": "string",
                            "minLength": 1,
                            "maxLength": UNCHANGED_REASON_CHARS,
                        },
                    },
                    "required": ["path", "reason"],
                },
            },
        },
        "required": ["done", "summary"],
    },
)


def declared_unchanged(terminal_input: dict[str, Any] | None) -> dict[str, str]:
    """The files ``finish_task`` says need no change, with their reasons. An entry without
    a path or a reason is not a declaration (the schema requires both)."""
    out: dict[str, str] = {}
    entries = (terminal_input or {}).get("unchanged")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        path, reason = entry.get("path"), entry.get("reason")
        if isinstance(path, str) and path and isinstance(reason, str) and reason.strip():
            out[path] = reason.strip()[:UNCHANGED_REASON_CHARS]
    return out


def load_prompt(name: str) -> str:
    """The text of ``prflow/prompts/refactor_<name>.md``."""
    return resources.files("prflow").joinpath(f"prompts/refactor_{name}.md").read_text("utf-8")


def planner_message(
    directive: str,
    *,
    paths: Sequence[str],
    relevant: Sequence[str],
    test_paths: Sequence[str],
    rule_ids: Sequence[str],
    problems_before: str = "",
) -> str:
    shown = list(paths[:MAX_INDEX_PATHS])
    more = len(paths) - len(shown)
    parts = [
        "# Directive\n",
        directive.strip(),
        "\n\n# Repository index (paths you may use)\n",
        "\n".join(shown),
    ]
    if more > 0:
        parts.append(f"\n... and {more} more; search to find them.")
    if relevant:
        parts += ["\n\n# Most relevant files (retrieval)\n", "\n".join(relevant)]
    if test_paths:
        parts += ["\n\n# Test files\n", "\n".join(test_paths[:200])]
    if rule_ids:
        parts += [
            "\n\n# Active React rules (tag the tasks that apply them)\n",
            describe(rule_ids),
        ]
    if problems_before:
        parts += ["\n\n# Your previous plan was refused\n", problems_before]
    return "".join(parts)


def executor_message(
    task: TaskNode,
    plan: RefactorPlan,
    directive: str,
    *,
    context: Sequence[tuple[str, str]],
    focus: Sequence[str] = (),
    feedback: str = "",
    attempt: int = 1,
) -> str:
    """The task, where it sits in the plan, and the retrieved files (path, text)."""
    done_before = [t for t in plan.tasks if t.id in task.depends_on]
    lines = [
        f"# Directive\n{directive.strip()}\n",
        f"# Your task: {task.label} (id {task.id}, attempt {attempt})\n"
        f"{task.instructions.strip()}\n",
        "Files you may edit: " + ", ".join(task.files or ["(none)"]),
    ]
    if task.new_files:
        lines.append("Files you create: " + ", ".join(task.new_files))
    if focus and list(focus) != task.all_files:
        lines.append("Concentrate on: " + ", ".join(focus))
    if task.rule_ids:
        lines.append("\nReact rules to apply:\n" + describe(task.rule_ids))
    if done_before:
        lines.append("\nAlready done by earlier tasks: " + "; ".join(t.label for t in done_before))
    if plan.summary:
        lines.append(f"\nThe plan's approach: {plan.summary}")
    if feedback:
        lines.append(f"\n# Why you are trying again\n{feedback}")
    budget = MAX_CONTEXT_CHARS
    shown: list[str] = []
    own = set(task.all_files)
    for path, text in context:
        if budget <= 0:
            shown.append(f"\n## {path}\n(not shown: open it with the read tool)")
            continue
        # the task's own files in full; related files as a head, the rest on demand
        cap = budget if path in own else min(budget, MAX_RELATED_CHARS)
        body = text if len(text) <= cap else text[:cap] + "\n... (truncated: read_file for more)"
        budget -= len(body)
        shown.append(f"\n## {path}\n```\n{body}\n```")
    if shown:
        lines.append("\n# Files as they are now" + "".join(shown))
    return "\n".join(lines)
