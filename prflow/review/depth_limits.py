"""What a review of each depth may spend, whatever the model does.

A model that explores (reads on every turn before it answers), a planner that repeats
itself and a resolver that asks the same deep dive on every pass would each multiply
the agents of a review. These bounds hold regardless: how many reviewer
conversations a review runs in all (planned, gap, investigation and deep-dive
reviewers: the one reviewer definition), how many of them are deep dives, and how
many prompt tokens the whole review may send, split among its phases so that no
phase can eat another's share.
"""

from __future__ import annotations

from dataclasses import dataclass

from prflow.agent.plan import PhasePlan
from prflow.review.models import DIMENSIONS_BY_DEPTH, ReviewDepth
from prflow.review.run_models import ReviewPhase


@dataclass(frozen=True)
class DepthLimits:
    """The bounds of one depth."""

    dimensions: tuple[int, int]
    """Planned dimensions: (fewest, most)."""
    reviewers: int
    """Reviewer conversations in all: planned, gap, investigation and deep-dive reviewers."""
    deep_dives: int
    """Deep dives the cross-reference resolver may start in the whole review."""
    prompt_tokens: int
    """Tokens the whole review may send and receive (every phase together)."""


LIMITS: dict[ReviewDepth, DepthLimits] = {
    ReviewDepth.quick: DepthLimits(DIMENSIONS_BY_DEPTH[ReviewDepth.quick], 5, 1, 200_000),
    ReviewDepth.standard: DepthLimits(DIMENSIONS_BY_DEPTH[ReviewDepth.standard], 8, 2, 300_000),
    ReviewDepth.deep: DepthLimits(DIMENSIONS_BY_DEPTH[ReviewDepth.deep], 20, 5, 900_000),
}

REVIEWER_PHASES = frozenset(
    {
        ReviewPhase.reviewers,
        ReviewPhase.investigations,
        ReviewPhase.deep_dives,
        ReviewPhase.gap_reviewers,
    }
)
"""Phases whose agents are the one reviewer definition: they share the reviewer slots."""
MIN_PHASE_TOKENS = 10_000
"""No other phase gets less: two or three small requests (intake, coverage)."""
MIN_PASS_TOKENS = 8_000
"""A layer pass that keeps part of its phase's tokens for later passes still gets this
much (or all that is left): one continuation request and its answer."""
TOKEN_SHARES: dict[str, float] = {
    ReviewPhase.intake: 0.02,
    ReviewPhase.intake_escalation: 0.03,
    ReviewPhase.anatomy: 0.10,
    ReviewPhase.planning: 0.08,
    ReviewPhase.adversary: 0.10,
    ReviewPhase.cross_ref: 0.05,
    ReviewPhase.coverage: 0.02,
}
"""The other phases' shares of the budget (at least :data:`MIN_PHASE_TOKENS` each); what
they leave is split evenly over the depth's reviewer slots."""


def pass_tokens(left: int, share: float) -> int:
    """What a layer pass may use of the ``left`` tokens of its phase: ``share`` of them, but
    at least :data:`MIN_PASS_TOKENS` while that much is left."""
    return max(int(left * share), min(left, MIN_PASS_TOKENS))


def limits_for(depth: ReviewDepth) -> DepthLimits:
    return LIMITS[depth]


def phase_tokens(depth: ReviewDepth, phase: str) -> int:
    """The token cap of a phase other than the reviewers', for all its agents together."""
    return max(int(LIMITS[depth].prompt_tokens * TOKEN_SHARES[phase]), MIN_PHASE_TOKENS)


def reviewer_tokens(depth: ReviewDepth) -> int:
    """One reviewer conversation's token share: with every slot used and every other
    phase at its cap, the review stays within its budget."""
    limits = LIMITS[depth]
    others = sum(phase_tokens(depth, phase) for phase in TOKEN_SHARES)
    return (limits.prompt_tokens - others) // limits.reviewers


def token_capped(plans: dict[str, PhasePlan], depth: ReviewDepth) -> dict[str, PhasePlan]:
    """``plans`` with each phase's token cap no higher than its share of the depth's budget
    (a lower cap from settings stays); a reviewer phase's cap is per reviewer."""
    capped: dict[str, PhasePlan] = {}
    for phase, plan in plans.items():
        if phase in REVIEWER_PHASES:
            share = reviewer_tokens(depth)
        elif phase in TOKEN_SHARES:
            share = phase_tokens(depth, phase)
        else:
            capped[phase] = plan
            continue
        capped[phase] = plan.model_copy(
            update={"caps": plan.caps.model_copy(update={"tokens": min(plan.caps.tokens, share)})}
        )
    return capped


def planner_rules(depth: ReviewDepth) -> str:
    """The bounds as the planner is told them."""
    limits = LIMITS[depth]
    low, high = limits.dimensions
    return (
        f"This is a {depth.value} review: write between {low} and {high} dimensions, most "
        f"important first. The whole review runs at most {limits.reviewers} reviewers in all "
        f"(your dimensions plus the investigations, deep dives and gap reviewers they lead "
        f"to) and sends at most {limits.prompt_tokens:,} prompt tokens; each reviewer gets a "
        "share and must conclude within it. Give every dimension its own name and its own "
        "target files: dimensions with the same name or the same target files are merged "
        f"into one, and dimensions beyond the {high} most important are dropped."
    )
