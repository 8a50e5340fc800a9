"""With scripted turns: every edit doc sync applies is exact-unique and carries a reason.

For up to five must-update docs of a pair, a scripted doc agent first replaces
the evidence line alone (refused when that line is not unique in the doc),
then, if refused, the line with enough following lines to be unique, then
finishes. The run's JSON report is then audited: every applied edit has a
reason, its diff applies to the head, and its old text occurred exactly once;
every non-unique attempt left no edit.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.impact.measure import run_checked
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

MAX_DOCS = 5
MARK = " <!-- docsync bench -->"


@dataclass(frozen=True)
class EditAudit:
    docs: int
    scripted_unique: int
    refused_not_unique: int
    applied: int
    with_reason: int
    diffs_apply: int
    unique_at_head: int


def _unique_context(text: str, line_no: int) -> tuple[str, bool]:
    """The evidence line, grown by following lines until it occurs once; and whether the
    line alone already was unique."""
    lines = text.splitlines(keepends=True)
    start = line_no - 1
    alone = lines[start]
    end = start + 1
    while text.count("".join(lines[start:end])) > 1 and end < len(lines):
        end += 1
    return "".join(lines[start:end]), text.count(alone) == 1


def script_for(path: str, text: str, line_no: int) -> tuple[list[Turn], bool, str]:
    """The turns, whether the line alone is unique, and the old text the last edit sends."""
    context, alone_unique = _unique_context(text, line_no)
    line = text.splitlines(keepends=True)[line_no - 1]

    def edit(old: str) -> Turn:
        new = old.rstrip("\n") + MARK + ("\n" if old.endswith("\n") else "")
        reason = f"bench: mark the evidence line {line_no} of {path}"
        entry = {"old_string": old, "new_string": new, "reason": reason}
        return Turn(tool_uses=[ToolUse("edit_article", {"path": path, "edits": [entry]})])

    finish = Turn(tool_uses=[ToolUse("finish_doc", {"changed": True, "reason": "bench"})])
    turns = [edit(line)] if alone_unique else [edit(line), edit(context)]
    return [*turns, finish], alone_unique, line if alone_unique else context


def audit_edits(repo: Path, cli: PrflowCli, findings: dict[str, Any], report: Path) -> EditAudit:
    docs = [d for d in findings["docs"] if d["bucket"] == "must_update"][:MAX_DOCS]
    routes: dict[str, list[Turn]] = {}
    heads: dict[str, str] = {}
    final_old: dict[str, str] = {}
    unique = 0
    docs = [d for d in docs if any(e["line"] for e in d["evidence"])]
    for doc in docs:
        line = next(e["line"] for e in doc["evidence"] if e["line"])
        text = _show(repo, f"{HEAD_REF}:{doc['path']}")
        heads[doc["path"]] = text
        turns, alone_unique, final_old[doc["path"]] = script_for(doc["path"], text, line)
        unique += alone_unique
        routes[f"Doc to keep true: `{doc['path']}`"] = turns
    with ScriptedAnthropic() as model:
        model.route(routes)
        env_cli = PrflowCli(
            cli.state.parent / "edits",
            {"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": TEST_API_KEY},
        )
        report.unlink(missing_ok=True)
        command = [str(env_cli.binary), "docsync", "--repo", ".", "--base", BASE_REF]
        command += ["--head", HEAD_REF, "--max-docs", str(len(docs)), "--format", "json"]
        command += ["--output", str(report.resolve()), "--quiet"]
        # no warm worker: the embedded server and worker end with the command
        run_checked(command, cwd=repo, env={**env_cli.env(), "PRFLOW_TEMPORAL__WARM_SECONDS": "0"})
    data = json.loads(report.read_text(encoding="utf-8"))
    edits = data["edits"]
    applies = sum(_applies(repo, e["diff"]) for e in edits)
    unique_at_head = sum(
        heads[e["path"]].count(final_old[e["path"]]) == 1
        and _removed_text(e["diff"]) in final_old[e["path"]]
        for e in edits
        if e["path"] in heads
    )
    return EditAudit(
        docs=len(docs),
        scripted_unique=unique,
        refused_not_unique=len(docs) - unique,
        applied=len(edits),
        with_reason=sum(1 for e in edits if e["reason"].strip()),
        diffs_apply=applies,
        unique_at_head=unique_at_head,
    )


def _show(repo: Path, spec: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", spec], capture_output=True, text=True, check=True
    )
    return done.stdout


def _applies(repo: Path, diff: str) -> bool:
    """The diff applies to the head commit's tree (checked against a scratch index)."""
    done = subprocess.run(
        ["git", "-C", str(repo), "apply", "--check", "-"],
        input=diff,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0


def _removed_text(diff: str) -> str:
    removed = [
        line[1:]
        for line in diff.splitlines(keepends=True)
        if line.startswith("-") and not line.startswith("---")
    ]
    return "".join(removed)
