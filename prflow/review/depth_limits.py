"""What a review of each depth may spend, whatever the model does.

A model that explores (reads on every turn before it answers), a planner that repeats
itself and a resolver that asks the same deep dive on every pass would each multiply
the agents of a review. These bounds hold regardless: how many reviewer
conversations a review runs in all (planned, gap, investigation and deep-dive
reviewers: the one reviewer definition), how many of them are deep dives, and how
many prompt tokens the whole review may send, split among its phases so that no
phase can eat another's share.

The depth's bounds are ceilings. Below them the review is sized to its change
(:func:`limits_for` with a :class:`ReviewSize`): a reviewer conversation covers about
:attr:`DepthLimits.lines_per_reviewer` changed lines of code or
:attr:`DepthLimits.files_per_reviewer` code files, prose and data counting a quarter, so a
three-file fix gets one or two reviewers and a large release the depth's full complement.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, replace

from pydantic import BaseModel

from prflow.agent.plan import PhasePlan
from prflow.changes import FileCategory
from prflow.llm.token_estimate import CHARS_PER_TOKEN
from prflow.review.anatomy import DiffStructure
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
    lines_per_reviewer: int
    """Changed lines of code one planned reviewer covers at this depth."""
    files_per_reviewer: int
    """Changed code files one planned reviewer covers at this depth."""


LIMITS: dict[ReviewDepth, DepthLimits] = {
    ReviewDepth.quick: DepthLimits(DIMENSIONS_BY_DEPTH[ReviewDepth.quick], 5, 1, 200_000, 150, 8),
    ReviewDepth.standard: DepthLimits(
        DIMENSIONS_BY_DEPTH[ReviewDepth.standard], 8, 2, 284_000, 100, 5
    ),
    ReviewDepth.deep: DepthLimits(DIMENSIONS_BY_DEPTH[ReviewDepth.deep], 20, 5, 900_000, 50, 3),
}
"""Each depth's ceilings, and how much change one reviewer covers (deeper: less)."""

MIN_PLANNED = 2
"""However small the change, two planned reviewers look at it (two pairs of eyes)."""
CODE_CATEGORIES = frozenset({FileCategory.source, FileCategory.test})
PROSE_WEIGHT = 0.25
"""A changed line or file of docs, configuration or data weighs this much of a code one:
a reviewer reads it, but far faster than code."""


class ReviewSize(BaseModel):
    """How much a reviewer must read: the reviewable changed files, code apart from the rest
    (docs, configuration, data), with their added plus deleted lines."""

    code_files: int = 0
    code_lines: int = 0
    prose_files: int = 0
    prose_lines: int = 0

    @property
    def weighted_lines(self) -> float:
        return self.code_lines + PROSE_WEIGHT * self.prose_lines

    @property
    def weighted_files(self) -> float:
        return self.code_files + PROSE_WEIGHT * self.prose_files

    def describe(self) -> str:
        return (
            f"{self.code_files} code files (+/-{self.code_lines} lines) and "
            f"{self.prose_files} other files (+/-{self.prose_lines} lines)"
        )


def review_size(structure: DiffStructure, reviewable: Collection[str]) -> ReviewSize:
    """The size of the change reviewers read: the anatomy's reviewable files."""
    wanted = set(reviewable)
    size = ReviewSize()
    for file in structure.files:
        if file.path not in wanted:
            continue
        lines = file.additions + file.deletions
        if file.category in CODE_CATEGORIES:
            size.code_files += 1
            size.code_lines += lines
        else:
            size.prose_files += 1
            size.prose_lines += lines
    return size


def reviewer_loads(depth: ReviewDepth, size: ReviewSize) -> int:
    """How many planned reviewers the change needs at ``depth`` (at least one): one per
    ``lines_per_reviewer`` weighted lines or ``files_per_reviewer`` weighted files,
    whichever needs more."""
    limits = LIMITS[depth]
    by_lines = math.ceil(size.weighted_lines / limits.lines_per_reviewer)
    by_files = math.ceil(size.weighted_files / limits.files_per_reviewer)
    return max(1, by_lines, by_files)


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
    ReviewPhase.anatomy: 0.08,
    ReviewPhase.planning: 0.07,
    ReviewPhase.adversary: 0.10,
    ReviewPhase.cross_ref: 0.05,
    ReviewPhase.coverage: 0.02,
}
"""The other phases' shares of the budget (at least :data:`MIN_PHASE_TOKENS` each); what
they leave is split evenly over the depth's reviewer slots."""
QUESTION_PHASES = frozenset({ReviewPhase.investigations, ReviewPhase.deep_dives})
"""Reviewer phases that answer one question about named files, not a whole dimension."""
QUESTION_SHARE = 0.75
"""An investigation or deep dive gets this part of a reviewer slot's tokens: it answers one
precise question about a few files, where a planned reviewer covers a whole dimension."""


CONTINUED_PART = 0.5
"""A layer pass continues its earlier conversation only while that conversation weighs at
most this part of the tokens the pass may use: every turn of the pass sends it again, so a
larger one would leave no turn to judge the new findings (the pass starts fresh instead,
earlier findings named in one line each)."""


def pass_tokens(left: int, share: float) -> int:
    """What a layer pass may use of the ``left`` tokens of its phase: ``share`` of them, but
    at least :data:`MIN_PASS_TOKENS` while that much is left, and (a pass before the last,
    ``share`` below 1) no more than leaves :data:`MIN_PASS_TOKENS` for the pass after it."""
    if share >= 1.0:
        return left
    return max(min(int(left * share), left - MIN_PASS_TOKENS), min(left, MIN_PASS_TOKENS))


def continued_chars(tokens: int) -> int:
    """The largest earlier conversation a layer pass of ``tokens`` continues (characters at
    the budget's conservative :data:`~prflow.llm.token_estimate.CHARS_PER_TOKEN`)."""
    return int(tokens * CONTINUED_PART * CHARS_PER_TOKEN)


def limits_for(depth: ReviewDepth, size: ReviewSize | None = None) -> DepthLimits:
    """The bounds of a review of ``depth`` of a change of ``size`` (no size: the depth's).

    With the change needing ``loads`` planned reviewers (:func:`reviewer_loads`, at least
    :data:`MIN_PLANNED`) below the depth's most dimensions ``high``: at most ``loads``
    dimensions (at least the depth's fewest, or ``loads`` when that is fewer); reviewers in
    all and deep dives scaled by ``loads / high`` (rounded up), with room for at least one
    reviewer beyond the plan (an investigation, a deep dive or a gap) and at least one deep
    dive. The token budget is what the phases and the reviewer slots may spend at their caps,
    never more than the depth's. A change needing ``high`` or more gets the depth's bounds.
    """
    full = LIMITS[depth]
    low, high = full.dimensions
    if size is None:
        return full
    loads = max(reviewer_loads(depth, size), MIN_PLANNED)
    if loads >= high:
        return full
    share = loads / high
    reviewers = min(full.reviewers, max(loads + 1, math.ceil(full.reviewers * share)))
    return replace(
        full,
        dimensions=(min(low, loads), loads),
        reviewers=reviewers,
        deep_dives=min(full.deep_dives, max(1, math.ceil(full.deep_dives * share))),
        prompt_tokens=min(
            full.prompt_tokens, other_phase_tokens(depth) + reviewers * reviewer_tokens(depth)
        ),
    )


def phase_tokens(depth: ReviewDepth, phase: str) -> int:
    """The token cap of a phase other than the reviewers', for all its agents together."""
    return max(int(LIMITS[depth].prompt_tokens * TOKEN_SHARES[phase]), MIN_PHASE_TOKENS)


def reviewer_tokens(depth: ReviewDepth) -> int:
    """One reviewer conversation's token share: with every slot used and every other
    phase at its cap, the review stays within its budget."""
    limits = LIMITS[depth]
    return (limits.prompt_tokens - other_phase_tokens(depth)) // limits.reviewers


def question_tokens(depth: ReviewDepth) -> int:
    """One investigation's or deep dive's token share: :data:`QUESTION_SHARE` of a slot's."""
    return int(reviewer_tokens(depth) * QUESTION_SHARE)


def other_phase_tokens(depth: ReviewDepth) -> int:
    """The caps of the phases other than the reviewers', together: a review's budget is
    these and its reviewer slots at their share."""
    return sum(phase_tokens(depth, phase) for phase in TOKEN_SHARES)


def token_capped(plans: dict[str, PhasePlan], depth: ReviewDepth) -> dict[str, PhasePlan]:
    """``plans`` with each phase's token cap no higher than its share of the depth's budget
    (a lower cap from settings stays); a reviewer phase's cap is per reviewer."""
    capped: dict[str, PhasePlan] = {}
    for phase, plan in plans.items():
        if phase in QUESTION_PHASES:
            share = question_tokens(depth)
        elif phase in REVIEWER_PHASES:
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


def planner_rules(depth: ReviewDepth, size: ReviewSize | None = None) -> str:
    """The bounds as the planner is told them: this change's (see :func:`limits_for`)."""
    limits = limits_for(depth, size)
    low, high = limits.dimensions
    sized = ""
    if size is not None:
        sized = (
            f"The change under review is {size.describe()}; at this depth one reviewer "
            f"covers about {limits.lines_per_reviewer} changed lines of code or "
            f"{limits.files_per_reviewer} code files (other files count a quarter), so "
            "these bounds are sized to it. "
        )
    span = f"between {low} and {high} dimensions"
    if low == high:
        span = f"exactly {high} dimension" + ("s" if high > 1 else "")
    return sized + (
        f"This is a {depth.value} review: write {span}, most "
        f"important first. The whole review runs at most {limits.reviewers} reviewers in all "
        f"(your dimensions plus the investigations, deep dives and gap reviewers they lead "
        f"to) and sends at most {limits.prompt_tokens:,} prompt tokens; each reviewer gets a "
        "share and must conclude within it. Give every dimension its own name and its own "
        "target files: dimensions with the same name or the same target files are merged "
        f"into one, and dimensions beyond the {high} most important are dropped."
    )
