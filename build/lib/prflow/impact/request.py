"""Builds the LLM plan of an impact run from settings and command-line overrides."""

from __future__ import annotations

from prflow.budget import BudgetCaps
from prflow.config import Settings
from prflow.errors import UserError
from prflow.impact.run_models import LlmPlan

TIERS = ("budget", "mid", "premium")


def resolve_model(settings: Settings, choice: str | None) -> str:
    """A tier name maps to its configured model id; anything else is taken as an id."""
    name = choice or "mid"
    if name in TIERS:
        return str(getattr(settings.models, name))
    return name


def llm_plan(
    settings: Settings,
    *,
    enabled: bool = True,
    model: str | None = None,
    budget_usd: float | None = None,
    max_iterations: int | None = None,
    time_limit: float | None = None,
    budget_wait: float | None = None,
) -> LlmPlan:
    """Caps, model and price fixed at start, so the workflow never reads settings itself."""
    model_id = resolve_model(settings, model)
    price = settings.models.prices.get(model_id)
    if price is None:
        known = ", ".join(sorted(settings.models.prices))
        raise UserError(
            f'no price for model {model_id!r}; add it under [models.prices."{model_id}"] '
            f"in prflow.toml or pick one of: {known}"
        )
    b = settings.budget
    return LlmPlan(
        enabled=enabled,
        model=model_id,
        price=price,
        caps=BudgetCaps(
            usd=b.usd if budget_usd is None else budget_usd,
            tokens=b.tokens,
            iterations=b.iterations if max_iterations is None else max_iterations,
            wall_clock_seconds=b.wall_clock_seconds if time_limit is None else time_limit,
        ),
        task_queue=settings.temporal.llm_task_queue,
        request_timeout_seconds=settings.models.request_timeout_seconds,
        max_attempts=settings.models.max_attempts,
        raise_wait_seconds=b.raise_wait_seconds if budget_wait is None else budget_wait,
    )
