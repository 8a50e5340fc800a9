"""Builds the model plan of a docsync run's doc agents from settings and command-line overrides."""

from __future__ import annotations

from prflow.agent.plan import PhasePlan
from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.docsync.kind import DOCSYNC
from prflow.docsync.run_models import AGENT_PHASE


def agent_plan(
    settings: Settings,
    *,
    enabled: bool = True,
    model: str | None = None,
    budget_usd: float | None = None,
    max_iterations: int | None = None,
    time_limit: float | None = None,
    budget_wait: float | None = None,
) -> PhasePlan:
    """Each doc agent's plan: the ``docsync`` phase defaults, settings, then these overrides."""
    return phase_plan(
        settings,
        DOCSYNC,
        AGENT_PHASE,
        enabled=enabled,
        model=model,
        budget_usd=budget_usd,
        max_iterations=max_iterations,
        time_limit=time_limit,
        budget_wait=budget_wait,
    )
