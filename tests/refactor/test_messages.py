"""What an executor is told: its task, where it sits in the plan, its files in full and the
related files as a head (the rest on demand), and on a retry why."""

from __future__ import annotations

from prflow.refactor.messages import MAX_RELATED_CHARS, executor_message
from prflow.refactor.plan import RefactorPlan, TaskNode

CORE = TaskNode(
    id="core", title="Make storage async", instructions="Use to_thread.", files=["storage/files.py"]
)
CALLERS = TaskNode(
    id="callers",
    title="Await storage",
    instructions="Await it.",
    files=["app/service.py"],
    depends_on=["core"],
    rule_ids=["async-parallel"],
)
PLAN = RefactorPlan(summary="Storage first.", tasks=[CORE, CALLERS])


def test_own_files_in_full_related_files_as_a_head() -> None:
    own = "x = 1\n" * 1000
    related = "y = 2\n" * 1000
    text = executor_message(
        CALLERS,
        PLAN,
        "Go async",
        context=[("app/service.py", own), ("app/report.py", related)],
        feedback="app/service.py: read() is async now",
        attempt=2,
    )
    assert "# Your task: Await storage (id callers, attempt 2)" in text
    assert own in text, "the task's own file is shown whole"
    assert related not in text and related[:MAX_RELATED_CHARS] in text
    assert "truncated: read_file for more" in text
    assert "Already done by earlier tasks: Make storage async" in text
    assert "async-parallel (Eliminating Waterfalls, CRITICAL)" in text
    assert "# Why you are trying again\napp/service.py: read() is async now" in text


def test_finish_task_declares_the_files_that_need_no_change_and_the_prompt_says_so() -> None:
    """The rule the audit enforces (a listed file changed or declared unchanged, with why)
    is in the tool's input schema and the executor's prompt (issue 26 item 3)."""
    from prflow.refactor.messages import FINISH_TASK, declared_unchanged, load_prompt

    item = FINISH_TASK.input_schema["properties"]["unchanged"]["items"]
    assert item["required"] == ["path", "reason"]
    assert item["properties"]["reason"]["minLength"] == 1
    assert "`unchanged`" in load_prompt("executor")
    given = {
        "done": True,
        "unchanged": [
            {"path": "a.py", "reason": " only reads it "},
            {"path": "b.py", "reason": ""},
            {"path": "c.py"},
            "d.py",
        ],
    }
    assert declared_unchanged(given) == {"a.py": "only reads it"}
    assert declared_unchanged(None) == {}
