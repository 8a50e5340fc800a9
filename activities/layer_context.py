"""What a layer pass is shown beyond its findings: the cited code, and its own earlier pass.

The adversary judges each finding from the lines around its citation, so it need
not spend a turn reading them; a later pass of either layer agent continues the
conversation of the previous one (its messages are read from the prompt cache)
with the tool results answering its submission and a message of new findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prflow.agent.messages import PreparedPrompt
from prflow.agent.transcript import content_chars
from prflow.git.repo import GitRepoReader
from prflow.impact.evidence import cited_text
from prflow.llm.messages import MessageRef
from prflow.repo_models import ResolvedRange
from prflow.review.agents.layer import cited_lines, code_budget
from prflow.review.models import DiffSide, ReviewFinding
from prflow.review.stage_models import LayerContinuation
from prflow.store.blobs import get_json, put_json
from prflow.store.transcripts import load_transcript, store_transcript
from prflow.tools.reader import ToolError

MAX_CONTINUED_CHARS = 160_000
"""A previous pass's conversation larger than this is not continued: the pass starts fresh."""
SUBMITTED = "Accepted."
NOT_RUN = "Not run: you had already submitted."


def code_of(findings: Sequence[ReviewFinding], rng: ResolvedRange) -> dict[str, list[str]]:
    """The numbered lines around each finding's citation (head, or base for removed lines),
    by fingerprint, within the message's line budget."""
    reader = GitRepoReader.for_range(rng)
    texts: dict[tuple[str, str], str | None] = {}
    excerpts: list[list[str]] = []
    for finding in findings:
        sha = rng.head_sha if finding.side == DiffSide.right else rng.merge_base_sha
        if (sha, finding.file) not in texts:
            texts[sha, finding.file] = _text(reader, sha, finding.file)
        text = texts[sha, finding.file]
        excerpts.append(
            cited_lines(text, finding.line_start, finding.line_end) if text is not None else []
        )
    kept = code_budget(excerpts)
    return {f.fingerprint: lines for f, lines in zip(findings, kept, strict=True) if lines}


def _text(reader: GitRepoReader, sha: str, path: str) -> str | None:
    try:
        text = cited_text(reader.read_file(sha, path))
    except (ToolError, OSError):
        return None
    return text if isinstance(text, str) else None


def continued(
    db_url: str, previous: LayerContinuation, prompt: PreparedPrompt, message: str
) -> PreparedPrompt | None:
    """``prompt`` (system and tools of the pass) continuing ``previous``: its messages, the
    results of its last tool calls, then ``message``. None when there is nothing to
    continue (the pass did not end on a tool call) or the conversation grew too large
    (above :data:`MAX_CONTINUED_CHARS`, or the pass's ``max_chars``)."""
    messages = (
        load_transcript(db_url, previous.transcript_key)
        if previous.transcript_key is not None
        else list(previous.transcript)
    )
    if not messages or messages[-1].role != "assistant":
        return None
    blocks = [get_json(db_url, m.blob_key) for m in messages]
    size = sum(content_chars(b) for b in blocks)
    if size > min(MAX_CONTINUED_CHARS, previous.max_chars or MAX_CONTINUED_CHARS):
        return None
    results = submission_results(blocks[-1], previous.terminal_tool)
    if not results:
        return None
    user = [*results, {"type": "text", "text": message}]
    key = put_json(db_url, user)
    grown = [*messages, MessageRef(role="user", blob_key=key)]
    return prompt.model_copy(
        update={
            "message_key": key,
            "message_chars": size + content_chars(user),
            "transcript_key": store_transcript(db_url, grown),
            "transcript_len": len(grown),
        }
    )


def submission_results(assistant: list[dict[str, Any]], terminal_tool: str) -> list[dict[str, Any]]:
    """The tool results answering the last turn of a pass: its submission accepted, any other
    call made beside it not run. Empty when the turn did not submit."""
    uses = [b for b in assistant if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not any(b.get("name") == terminal_tool for b in uses):
        return []
    return [
        {
            "type": "tool_result",
            "tool_use_id": b["id"],
            "content": SUBMITTED if b.get("name") == terminal_tool else NOT_RUN,
        }
        for b in uses
    ]
