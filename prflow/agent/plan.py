"""How one model phase of a run may run: model, pinned price, caps and call policy.

The client builds a plan from settings and the kind's phase defaults when the
run starts, so workflow code never reads settings, and the price that checks
the budget is the price the ledger records.
"""

from __future__ import annotations

from pydantic import BaseModel

from prflow.agent.budget import BudgetCaps
from prflow.config import PriceRow
from prflow.task_queues import recorded_queue


class PhasePlan(BaseModel):
    """Model, price, caps and call policy of one phase (the same shape for every kind)."""

    enabled: bool = True
    model: str
    price: PriceRow
    max_tokens: int = 8192
    caps: BudgetCaps
    task_queue: str | None = recorded_queue()
    request_timeout_seconds: float = 120.0
    heartbeat_timeout_seconds: float = 30.0
    max_attempts: int = 5
    raise_wait_seconds: float = 0.0
