"""Prompt economy: keep long conversations cheap without breaking the prompt cache.

Two rules, both decided in code so a run replays the same way:

- one turn's tool results together stay under a character cap (the model is
  told what was cut and can ask for a narrower slice);
- once a prompt passes a token threshold, tool results older than the last few
  messages are replaced by a short stub. The cut point moves only in large
  steps, so between two moves every request repeats the previous prompt byte
  for byte and the cache keeps serving it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class PromptEconomy(BaseModel):
    """Limits on what an agent's conversation may carry.

    The defaults are sized for a 30-turn impact run: one turn may bring a 400-line
    file or two per-file diffs whole (about 6k tokens), and no request grows much
    past 40k tokens even when every turn fills its cap, which keeps such a run
    under a million prompt tokens, most of them cache reads
    (``tests/agent/test_economy_defaults.py`` plays that worst case).
    """

    max_tool_result_chars_per_turn: int = Field(
        default=24_000, ge=1_000, description="Combined size of one turn's tool results"
    )
    elide_after_tokens: int = Field(
        default=32_000, ge=1_000, description="Prompt size above which old tool results go"
    )
    keep_recent_messages: int = Field(
        default=6, ge=2, description="The newest messages whose tool results are never elided"
    )
    min_elision_step: int = Field(
        default=8, ge=2, description="Fewest messages the cut point moves by, to keep the cache"
    )


def next_elision_point(
    current: int, transcript_len: int, prompt_tokens: int, economy: PromptEconomy
) -> int:
    """Index before which tool results are stubbed in the next request.

    Unchanged while the prompt is under the threshold or while moving it would
    gain fewer than ``min_elision_step`` messages.
    """
    if prompt_tokens <= economy.elide_after_tokens:
        return current
    target = transcript_len - economy.keep_recent_messages
    if target - current < economy.min_elision_step:
        return current
    return target


def elision_stub(tool_name: str, chars: int) -> str:
    """What an elided tool result says instead of its content."""
    return (
        f"[{tool_name} result of {chars} characters removed to keep the conversation short; "
        "call the tool again if you still need it]"
    )


def share_of_cap(sizes: list[int], cap: int) -> list[int]:
    """How many characters each result may keep so that together they fit ``cap``.

    Small results are kept whole; the budget left is split evenly among the
    large ones (water-filling), so one huge result cannot starve the rest.
    """
    if sum(sizes) <= cap:
        return list(sizes)
    allowed = [0] * len(sizes)
    remaining = cap
    pending = sorted(range(len(sizes)), key=lambda i: sizes[i])
    while pending:
        fair = remaining // len(pending)
        index = pending[0]
        if sizes[index] <= fair:
            allowed[index] = sizes[index]
            remaining -= sizes[index]
            pending.pop(0)
            continue
        for index in pending:
            allowed[index] = fair
        break
    return allowed
