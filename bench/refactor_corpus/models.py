"""The scripted models a corpus case runs against, all from rope's target change set.

- ``known``: plans the code files (batches of at most 40) and then the tests, and each
  executor makes exactly the target's edits to its files;
- ``left_behind``: the same, but the last step leaves one of its files unedited;
- ``nonsense``: the same plan, and every executor writes text that does not parse;
- ``chaos`` is ``known`` with the worker SIGKILLed mid-run (the runner does the killing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.refactor_corpus.targets import Target
from tests.support.scripted_anthropic import ToolUse, Turn
from tests.support.scripted_edits import file_change

PLANNER_KEY = "You turn one refactor directive into a plan"
BATCH = 40
MODELS = ("known", "left_behind", "nonsense", "chaos")


def is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return path.startswith(("tests/", "test/")) or name.startswith("test_")


def plan_of(target: Target, repo: Path) -> dict[str, Any]:
    """Code before tests, each in batches of at most 40 files."""
    code = sorted(p for p in target.changes if not is_test(p))
    tests = sorted(p for p in target.changes if is_test(p))
    steps: list[dict[str, Any]] = []
    code_ids: list[str] = []
    for n in range(0, len(code), BATCH):
        batch = code[n : n + BATCH]
        code_ids.append(f"code-{n // BATCH + 1}")
        steps.append(_step(code_ids[-1], batch, [], target, repo))
    for n in range(0, len(tests), BATCH):
        batch = tests[n : n + BATCH]
        steps.append(_step(f"tests-{n // BATCH + 1}", batch, code_ids, target, repo))
    return {"summary": f"{target.kind}: code first, then tests.", "tasks": steps}


def _step(
    tid: str, files: list[str], deps: list[str], target: Target, repo: Path
) -> dict[str, Any]:
    existing = [p for p in files if (repo / p).exists()]
    created = [p for p in files if not (repo / p).exists()]
    return {
        "id": tid,
        "title": f"{target.old} -> {target.new} in {len(files)} files",
        "instructions": f"{target.directive}. Edit only these files.",
        "files": existing,
        "new_files": created,
        "depends_on": deps,
    }


def routes(model: str, target: Target, repo: Path) -> dict[str, list[Turn]]:
    plan = plan_of(target, repo)
    out: dict[str, list[Turn]] = {
        PLANNER_KEY: [Turn(tool_uses=[ToolUse("submit_refactor_plan", plan)])]
    }
    last = plan["tasks"][-1]["id"]
    for step in plan["tasks"]:
        files = [*step["files"], *step["new_files"]]
        if model == "left_behind" and step["id"] == last:
            files = files[:-1]  # the last step leaves one of its files behind
        uses: list[ToolUse] = []
        for path in files:
            old = (repo / path).read_text(encoding="utf-8") if (repo / path).exists() else None
            new = target.changes[path]
            if new is not None:  # a model reads lines and writes "\n": prflow keeps the file's ends
                new = new.replace("\r\n", "\n")
            if model == "nonsense":
                new = "def (:\n    ?? this is not python\n"
            use = file_change(path, old, new, f"{target.kind}: {target.old} -> {target.new}")
            if use is not None:
                uses.append(use)
        turns = [Turn(tool_uses=uses)] if uses else []
        turns.append(Turn(tool_uses=[ToolUse("finish_task", {"done": True, "summary": "done"})]))
        for attempt in (1, 2):
            out[f"(id {step['id']}, attempt {attempt})"] = list(turns)
    return out
