"""How a phase's caps are split among the agents that share it.

A phase such as ``reviewers`` has one cap for all its agents: each reviewer
gets a share by its dimension's priority; passes of the review layer run one
after another and each gets what the phase has left.
"""

from __future__ import annotations

from collections.abc import Sequence

from prflow.agent.budget import BudgetCaps, Spend

MIN_PASS_USD = 0.005
"""Below this much left, another pass of a layer agent is not started."""


def priority_weights(priorities: Sequence[int]) -> list[float]:
    """Priority 1 weighs 5, priority 5 weighs 1; the weights sum to 1."""
    raw = [float(6 - min(max(p, 1), 5)) for p in priorities]
    total = sum(raw) or 1.0
    return [w / total for w in raw]


def shared(caps: BudgetCaps, fraction: float) -> BudgetCaps:
    """``fraction`` of the money and tokens; turns and wall clock stay per agent."""
    return caps.model_copy(
        update={"usd": round(caps.usd * fraction, 6), "tokens": int(caps.tokens * fraction)}
    )


def remaining(caps: BudgetCaps, spent: Spend) -> BudgetCaps:
    """What is left of a phase's money and tokens after ``spent``."""
    return caps.model_copy(
        update={
            "usd": max(round(caps.usd - spent.usd, 6), 0.0),
            "tokens": max(caps.tokens - spent.tokens, 0),
        }
    )


def add_spend(total: Spend, more: Spend) -> Spend:
    """A new :class:`Spend` holding both."""
    summed = total.model_copy(deep=True)
    summed.add_usage(more)
    summed.usd = round(summed.usd + more.usd, 8)
    summed.calls += more.calls
    summed.iterations += more.iterations
    return summed
