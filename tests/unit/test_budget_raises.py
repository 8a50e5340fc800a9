"""A raise lifts a phase: agents that start after it get it, once, if it is addressed to them."""

from __future__ import annotations

from prflow.agent.budget import BudgetCaps, BudgetRaise
from prflow.agent.plan import PhasePlan
from prflow.agent.raises import caps_after, plan_after
from prflow.config import PriceRow

CAPS = BudgetCaps(usd=1.0, tokens=1000, iterations=10, wall_clock_seconds=60)


def test_every_raise_addressed_to_the_agent_adds_once() -> None:
    raises = [
        BudgetRaise(add_usd=0.5),  # every phase
        BudgetRaise(phase="executor", add_iterations=5),
        BudgetRaise(phase="executor:core:1", add_tokens=100),  # that one agent
        BudgetRaise(phase="planning", add_usd=9),  # another phase
    ]
    core = caps_after(CAPS, raises, name="executor:core:1", phase="executor")
    callers = caps_after(CAPS, raises, name="executor:callers:1", phase="executor")

    assert (core.usd, core.iterations, core.tokens) == (1.5, 15, 1100)
    assert (callers.usd, callers.iterations, callers.tokens) == (1.5, 15, 1000)


def test_a_plan_for_agents_not_yet_named_takes_the_phase_wide_raises_only() -> None:
    plan = PhasePlan(
        model="m",
        price=PriceRow(input=1, output=1, cache_write=1, cache_read=1),
        caps=CAPS,
        task_queue="prflow-llm",
    )
    raises = [BudgetRaise(phase="executor", add_usd=2), BudgetRaise(phase="executor:core:1")]

    assert plan_after(plan, raises, "executor").caps.usd == 3.0
    assert plan_after(plan, [], "executor") is plan
    assert plan_after(None, raises, "executor") is None
    assert plan.caps.usd == 1.0, "the run's own plan is left as it was"
