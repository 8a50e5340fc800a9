"""Builds the model plan of an impact run from settings and command-line overrides."""

from __future__ import annotations

from prflow.agent.plan import PhasePlan
from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE


def llm_plan(
    settings: Settings,
    *,
    enabled: bool = True,
    model: str | None = None,
    budget_usd: float | None = None,
    max_iterations: int | None = None,
    time_limit: float | None = None,
    budget_wait: float | None = None,
) -> PhasePlan:
    """The impact agent's plan: its phase defaults, settings and these overrides."""
    return phase_plan(
        settings,
        IMPACT,
        LLM_PHASE,
        enabled=enabled,
        model=model,
        budget_usd=budget_usd,
        max_iterations=max_iterations,
        time_limit=time_limit,
        budget_wait=budget_wait,
    )
