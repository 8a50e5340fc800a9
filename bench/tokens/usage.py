"""Prompt tokens per request as the scripted server reported them, and what they add up to."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tests.support.scripted_anthropic import CHARS_PER_TOKEN, RecordedRequest, prompt_segments

CACHE_WRITE_PRICE = 1.25
CACHE_READ_PRICE = 0.10
"""Anthropic's prices for 5-minute cache writes and cache reads, as multiples of fresh input."""


@dataclass(frozen=True)
class TurnTokens:
    fresh: int
    cache_write: int
    cache_read: int

    @property
    def prompt(self) -> int:
        """Every prompt token of the request, cached or not."""
        return self.fresh + self.cache_write + self.cache_read


@dataclass(frozen=True)
class RunTokens:
    turns: tuple[TurnTokens, ...]

    @classmethod
    def of(cls, requests: list[RecordedRequest]) -> RunTokens:
        turns = []
        for request in requests:
            usage = request.usage or {}
            turns.append(
                TurnTokens(
                    fresh=int(usage.get("input_tokens", 0)),
                    cache_write=int(usage.get("cache_creation_input_tokens", 0)),
                    cache_read=int(usage.get("cache_read_input_tokens", 0)),
                )
            )
        return cls(tuple(turns))

    @property
    def prompt(self) -> int:
        return sum(turn.prompt for turn in self.turns)

    @property
    def read_share_after_first(self) -> float:
        """Cache reads over all prompt tokens of turns 2 and later."""
        later = self.turns[1:]
        sent = sum(turn.prompt for turn in later)
        return sum(turn.cache_read for turn in later) / sent if sent else 0.0

    @property
    def priced_as_fresh(self) -> float:
        """The prompt priced in fresh-input tokens (writes cost more, reads far less)."""
        return sum(
            turn.fresh + CACHE_WRITE_PRICE * turn.cache_write + CACHE_READ_PRICE * turn.cache_read
            for turn in self.turns
        )


def first_prompt_parts(body: dict[str, Any]) -> dict[str, int]:
    """Tokens of the tools, the system prompt and the first message, counted as the server does.

    Every request repeats these, so they are the floor of a run's total.
    """
    tokens = [max(1, math.ceil(len(s) / CHARS_PER_TOKEN)) for s in prompt_segments(body)]
    tools, system = len(body.get("tools") or []), len(body["system"])
    return {
        "tools": sum(tokens[:tools]),
        "system prompt": sum(tokens[tools : tools + system]),
        "first message": sum(tokens[tools + system :]),
    }
