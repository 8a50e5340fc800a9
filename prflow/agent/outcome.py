"""How an agent run ended: the loop's result, shared by workflows and report builders."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from prflow.agent.budget import Spend
from prflow.llm.messages import MessageRef
from prflow.workspace.models import WorkspaceRef


class StopReason(StrEnum):
    final_answer = "final_answer"
    terminal_tool = "terminal_tool"
    iterations = "iterations"
    wall_clock = "wall_clock"
    budget_usd = "budget_usd"
    budget_tokens = "budget_tokens"
    llm_error = "llm_error"
    cancelled = "cancelled"


class AgentOutcome(BaseModel):
    name: str = ""
    stop: StopReason
    detail: str = ""
    final_text: str = ""
    terminal_input: dict[str, Any] | None = None
    iterations: int = 0
    transcript: list[MessageRef] = Field(default_factory=list)
    transcript_key: str | None = None
    spent: Spend = Field(default_factory=Spend)
    workspace: WorkspaceRef | None = Field(
        default=None, description="The workspace after the agent's last edit (workspace tools)"
    )

    @property
    def completed(self) -> bool:
        return self.stop in (StopReason.final_answer, StopReason.terminal_tool)
