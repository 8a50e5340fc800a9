"""How an agent run ended: the loop's result, shared by workflows and report builders."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from prflow.llm.messages import MessageRef


class StopReason(StrEnum):
    final_answer = "final_answer"
    terminal_tool = "terminal_tool"
    iterations = "iterations"
    wall_clock = "wall_clock"
    budget_usd = "budget_usd"
    budget_tokens = "budget_tokens"
    llm_error = "llm_error"


class AgentOutcome(BaseModel):
    stop: StopReason
    detail: str = ""
    final_text: str = ""
    terminal_input: dict[str, Any] | None = None
    iterations: int = 0
    transcript: list[MessageRef] = Field(default_factory=list)

    @property
    def completed(self) -> bool:
        return self.stop in (StopReason.final_answer, StopReason.terminal_tool)
