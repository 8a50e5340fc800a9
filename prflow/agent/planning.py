"""Build a phase's plan at start: command line over settings over the kind's defaults.

Precedence for each value: an explicit command-line option, then
``[phases.<kind>.<phase>]`` in settings, then the kind's declared default, then
the ``[budget]`` settings. The price row is looked up once here and pinned in
the plan, so the budget check and the ledger price a call the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from prflow.agent.budget import BudgetCaps
from prflow.agent.plan import PhasePlan
from prflow.config import PhaseSettings, Settings
from prflow.errors import UserError
from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults

_T = TypeVar("_T")
TIERS = tuple(tier.value for tier in ModelTier)


def resolve_model(
    settings: Settings, choice: str | None, default: ModelTier = ModelTier.mid
) -> str:
    """A tier name maps to its configured model id; anything else is taken as an id."""
    name = choice or default.value
    if name in TIERS:
        return str(getattr(settings.models, name))
    return name


def phase_plan(
    settings: Settings,
    kind: KindDeclaration,
    phase: str,
    *,
    enabled: bool = True,
    model: str | None = None,
    budget_usd: float | None = None,
    max_iterations: int | None = None,
    time_limit: float | None = None,
    budget_wait: float | None = None,
) -> PhasePlan:
    """Caps, model and price fixed at start, so the workflow never reads settings itself."""
    defaults = kind.phases.get(phase, PhaseDefaults())
    configured = settings.phases.get(kind.name, {}).get(phase, PhaseSettings())
    model_id = resolve_model(settings, model or configured.model, defaults.tier)
    price = settings.models.prices.get(model_id)
    if price is None:
        known = ", ".join(sorted(settings.models.prices))
        raise UserError(
            f'no price for model {model_id!r}; add it under [models.prices."{model_id}"] '
            f"in prflow.toml or pick one of: {known}"
        )
    b = settings.budget
    fallback = BudgetCaps(
        usd=b.usd, tokens=b.tokens, iterations=b.iterations, wall_clock_seconds=b.wall_clock_seconds
    )
    caps = _default_caps(defaults, fallback)
    caps = BudgetCaps(
        usd=_first(budget_usd, configured.usd, caps.usd),
        tokens=_first(None, configured.tokens, caps.tokens),
        iterations=_first(max_iterations, configured.iterations, caps.iterations),
        wall_clock_seconds=_first(
            time_limit, configured.wall_clock_seconds, caps.wall_clock_seconds
        ),
    )
    return PhasePlan(
        enabled=enabled,
        model=model_id,
        price=price,
        max_tokens=configured.max_tokens or defaults.max_tokens,
        caps=caps,
        request_timeout_seconds=settings.models.request_timeout_seconds,
        max_attempts=settings.models.max_attempts,
        raise_wait_seconds=b.raise_wait_seconds if budget_wait is None else budget_wait,
    )


def phase_plans(
    settings: Settings,
    kind: KindDeclaration,
    phases: Iterable[str],
    *,
    enabled: bool = True,
    budget_usd: float | None = None,
    budget_wait: float | None = None,
) -> dict[str, PhasePlan]:
    """Every model phase's plan; ``budget_usd`` caps the whole run, each phase's USD cap
    scaled by one factor so the phases keep their proportions. Not ``enabled``: no plans
    (static mode)."""
    if not enabled:
        return {}
    plans = {phase: phase_plan(settings, kind, phase, budget_wait=budget_wait) for phase in phases}
    if budget_usd is None:
        return plans
    factor = budget_usd / (sum(plan.caps.usd for plan in plans.values()) or 1.0)
    return {
        phase: plan.model_copy(
            update={"caps": plan.caps.model_copy(update={"usd": plan.caps.usd * factor})}
        )
        for phase, plan in plans.items()
    }


def _first(*values: _T | None) -> _T:
    for value in values:
        if value is not None:
            return value
    raise ValueError("no value")


def _default_caps(defaults: PhaseDefaults, fallback: BudgetCaps) -> BudgetCaps:
    """The kind's declared caps of a phase, each unset one taken from ``[budget]``."""
    declared = {
        "usd": defaults.usd,
        "tokens": defaults.tokens,
        "iterations": defaults.iterations,
        "wall_clock_seconds": defaults.wall_clock_seconds,
    }
    return fallback.model_copy(update={k: v for k, v in declared.items() if v is not None})
