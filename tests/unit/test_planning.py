"""A phase's plan: command line over ``[phases.<kind>.<phase>]`` over the kind's default over
``[budget]``, with the price pinned from the table."""

from __future__ import annotations

import dataclasses

import pytest

from prflow.agent.planning import phase_plan
from prflow.config import PhaseSettings, load_settings
from prflow.errors import UserError
from prflow.impact.kind import IMPACT
from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults


@pytest.fixture
def kind() -> KindDeclaration:
    return dataclasses.replace(
        IMPACT, phases={"agent": PhaseDefaults(tier=ModelTier.premium, iterations=12)}
    )


def test_values_come_from_the_most_specific_place_that_sets_them(
    kind: KindDeclaration,
) -> None:
    settings = load_settings()
    settings.budget.usd = 3.0
    settings.phases = {"impact": {"agent": PhaseSettings(usd=1.5, model="budget")}}
    plan = phase_plan(settings, kind, "agent", max_iterations=7)
    assert plan.caps.iterations == 7, "command line first"
    assert plan.caps.usd == 1.5, "then [phases.impact.agent]"
    assert plan.model == settings.models.budget, "a tier named in settings maps to its model"
    assert plan.price == settings.models.prices[settings.models.budget], "price pinned at start"
    assert plan.caps.wall_clock_seconds == settings.budget.wall_clock_seconds, "then [budget]"


def test_the_kind_default_applies_when_settings_say_nothing(kind: KindDeclaration) -> None:
    settings = load_settings()
    plan = phase_plan(settings, kind, "agent")
    assert (plan.model, plan.caps.iterations) == (settings.models.premium, 12)


def test_a_model_without_a_price_is_a_one_line_user_error() -> None:
    with pytest.raises(UserError, match=r"no price for model 'claude-nope'.*models\.prices"):
        phase_plan(load_settings(), IMPACT, "impact_agent", model="claude-nope")
