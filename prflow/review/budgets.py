"""How a phase's caps are split among the agents that share it.

A phase such as ``reviewers`` has one cap for all its agents: each reviewer
gets a share by its dimension's priority; passes of the review layer run one
after another and each gets what the phase has left. What a phase leaves
unspent flows to the phases after it (:class:`UnspentPool`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from prflow.agent.budget import BudgetCaps, Spend

MIN_PASS_USD = 0.005
USD_STEPS = 1_000_000
"""Grants are whole micro-dollars, rounded down, so shares never add up to more."""
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


@dataclass
class UnspentPool:
    """Money earlier agents of a run left unspent, for the agents after them.

    An agent is granted a share of the pool on top of its own caps; when it
    finishes, what it did not spend goes back. An agent whose phase gives its
    next agent what is left of the phase (``within_phase``) returns only the
    unspent part of its grant, since the rest stays the phase's own. So the
    run never spends more than the sum of its phases' caps.
    """

    usd: float = 0.0
    grants: dict[str, tuple[float, float, bool]] = field(default_factory=dict)

    def grant(self, name: str, base_usd: float, share: float, *, within_phase: bool) -> float:
        """Take ``share`` of the pool for agent ``name`` (whose own cap is ``base_usd``)."""
        extra = math.floor(self.usd * min(max(share, 0.0), 1.0) * USD_STEPS) / USD_STEPS
        self.usd = round(self.usd - extra, 9)
        self.grants[name] = (base_usd, extra, within_phase)
        return extra

    def settle(self, name: str, spent_usd: float) -> None:
        """Agent ``name`` finished having spent ``spent_usd``: its unspent money comes back."""
        base, extra, within_phase = self.grants.pop(name, (0.0, 0.0, True))
        back = extra - max(spent_usd - base, 0.0) if within_phase else base + extra - spent_usd
        self.usd = round(self.usd + math.floor(max(back, 0.0) * USD_STEPS) / USD_STEPS, 9)
