"""What a doc agent is told and offered, and what its end means for the doc.

One agent per doc: its first message holds the doc (exactly as the run read
it, so an ``old_string`` can be copied from it), why the doc was picked (the
evidence lines) and what changed (the targets with their before/after); its
tools are impact's read tools, the edit tool restricted to that doc, and
``finish_doc``, which ends it with whether it changed the doc and why.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from prflow.agent.outcome import AgentOutcome, StopReason
from prflow.docsync.models import AffectedDoc, Target
from prflow.docsync.report import seen_text
from prflow.docsync.run_models import DocOutcome, DocStatus
from prflow.llm.messages import ToolSpec

FINISH_TOOL = ToolSpec(
    name="finish_doc",
    description="End your work on the doc, once: whether you changed it, and why.",
    input_schema={
        "type": "object",
        "properties": {
            "changed": {"type": "boolean", "description": "True if you made edits"},
            "reason": {
                "type": "string",
                "description": "Why the doc needed these edits, or why it needs none",
            },
        },
        "required": ["changed", "reason"],
    },
)
MAX_DOC_CHARS = 60_000
MAX_TARGETS = 30


def system_prompt(edit_tool: str) -> str:
    text = resources.files("prflow").joinpath("prompts/docsync_system.md").read_text("utf-8")
    return text.replace("{edit_tool}", edit_tool).replace("{finish_tool}", FINISH_TOOL.name)


def doc_message(doc: AffectedDoc, text: str, targets: list[Target], *, base: str, head: str) -> str:
    """The first user message of the agent for ``doc``."""
    named = {e.target for e in doc.evidence}
    relevant = [t for t in targets if t.name in named] or targets
    lines = [
        f"Change: `{base}`..`{head}`. Doc to keep true: `{doc.path}` "
        f"(bucket {doc.bucket.value}, score {doc.score:.2f}).",
        "",
        "## Why this doc was picked",
    ]
    for item in doc.evidence:
        where = f"line {item.line}: " if item.line else ""
        lines.append(f"- {where}{item.kind.value} `{item.target}`{seen_text(item)}: {item.excerpt}")
    lines += ["", "## What changed"]
    for target in relevant[:MAX_TARGETS]:
        extra = f" -> `{target.replacement}`" if target.replacement else ""
        detail = f": {target.detail}" if target.detail else ""
        source = f" (in `{target.source}`)" if target.source else ""
        lines.append(
            f"- {target.kind.value} `{target.name}` {target.change.value}{extra}{source}{detail}"
        )
    shown = text if len(text) <= MAX_DOC_CHARS else text[:MAX_DOC_CHARS]
    cut = "" if shown is text else f"\n[cut at {MAX_DOC_CHARS} characters; read the rest]"
    lines += ["", f"## `{doc.path}` as it is now", "", "<doc>", shown + cut, "</doc>"]
    return "\n".join(lines)


def doc_outcome(path: str, outcome: AgentOutcome, patch_keys: list[str]) -> DocOutcome:
    """The doc's status from how its agent ended; its reason is model text."""
    finish: dict[str, Any] = outcome.terminal_input or {}
    reason = str(finish.get("reason") or outcome.final_text or outcome.detail).strip()
    if patch_keys:
        status = DocStatus.edited
    elif outcome.stop in (StopReason.terminal_tool, StopReason.final_answer):
        status = DocStatus.unchanged
    else:
        status = DocStatus.failed
        reason = reason or f"stopped: {outcome.stop.value}"
    return DocOutcome(
        path=path,
        status=status,
        reason=reason or "no reason given",
        model_text=bool(finish.get("reason") or outcome.final_text),
        edits=len(patch_keys),
        patch_keys=patch_keys,
        turns=outcome.iterations,
        cost_usd=outcome.spent.usd,
    )
