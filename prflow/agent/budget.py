"""Per-phase budgets: caps, spend so far, and the worst-case check before a model call.

Pure and deterministic, so workflow code can hold a :class:`BudgetBook` in its
state, check it before every LLM call, and raise caps from a Temporal update.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from prflow.config import PriceRow
from prflow.limits import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    MAX_TOKENS,
    MAX_USD,
    Iterations,
    Seconds,
    Tokens,
    Usd,
)
from prflow.llm.usage import Usage

TOKENS_PER_MILLION = 1_000_000
MIN_USEFUL_OUTPUT_TOKENS = 1024
"""A call is refused only when the budget cannot pay for this much output (or the
plan's max_tokens, if smaller): less than that rarely finishes a tool call or a submission."""


def no_room_after(left: int, next_tokens: int, output: int, growth: int = 0) -> bool:
    """Whether a call of ``next_tokens`` prompt tokens (with ``left`` tokens of the cap left
    before it) must be an agent's last: after it, the call following (as large, grown by
    ``growth`` more, with ``output`` tokens of answer) would no longer fit. ``growth`` is
    what the last turn added (its answer and tool results): a turn of large tool results
    otherwise leaves a forced last call that does not fit either."""
    return left < 2 * (next_tokens + output) + growth


class BudgetCaps(BaseModel):
    """Hard limits for one phase of one run."""

    usd: Usd
    tokens: Tokens
    iterations: Iterations
    wall_clock_seconds: Seconds


class Spend(Usage):
    """What a phase has used so far: its tokens, dollars, model calls and turns."""

    usd: float = 0.0
    calls: int = 0
    iterations: int = 0

    def add_turn(self, usage: Usage, usd: float) -> None:
        """Account one completed model turn."""
        self.add_usage(usage)
        self.usd = round(self.usd + usd, 8)
        self.calls += 1
        self.iterations += 1

    def plus(self, more: Spend) -> Spend:
        """A new :class:`Spend` holding both (a run's phases, tasks or continued runs)."""
        summed = self.model_copy(deep=True)
        summed.add_usage(more)
        summed.usd = round(summed.usd + more.usd, 8)
        summed.calls += more.calls
        summed.iterations += more.iterations
        return summed


class LimitKind(StrEnum):
    usd = "usd"
    tokens = "tokens"
    iterations = "iterations"
    wall_clock = "wall_clock"


class Verdict(BaseModel):
    """Whether the next call fits; when not, which cap it would break and why."""

    allowed: bool
    limit: LimitKind | None = None
    reason: str = ""
    max_tokens: int | None = Field(
        default=None, description="The output limit the call fits in (when sized to fit)"
    )


class BudgetRaise(BaseModel):
    """Argument of the ``raise_budget`` update: amounts added to the caps."""

    phase: str | None = Field(default=None, description="Phase to raise; None raises every phase")
    add_usd: Usd = 0.0
    add_tokens: Tokens = 0
    add_iterations: Iterations = 0
    add_seconds: Seconds = 0.0


class PhaseBudget(BaseModel):
    """Caps and spend of one agent (named ``phase``), maybe one of a group sharing a phase."""

    phase: str
    caps: BudgetCaps
    spent: Spend = Field(default_factory=Spend)
    group: str | None = Field(
        default=None, description="The ledger phase when several agents share it"
    )

    def answers_to(self, name: str | None) -> bool:
        """Whether a raise addressed to ``name`` (None: everyone) applies to this budget."""
        return name is None or name in (self.phase, self.group)


class BudgetStatus(BaseModel):
    """What the ``spend`` query returns."""

    phases: list[PhaseBudget]
    total_usd: float
    total_tokens: int


def worst_case_usd(price: PriceRow, input_tokens: int, max_tokens: int) -> float:
    """Most a call can cost: every input token at the dearest input rate, full output."""
    long_band = (
        price.long_prompt_threshold is not None and input_tokens > price.long_prompt_threshold
    )
    input_rates = [price.input, price.cache_write]
    output_rate = price.output
    if long_band:
        input_rates += [r for r in (price.long_input, price.long_cache_write) if r is not None]
        output_rate = price.long_output if price.long_output is not None else price.output
    return (input_tokens * max(input_rates) + max_tokens * output_rate) / TOKENS_PER_MILLION


def _input_rates(price: PriceRow, input_tokens: int) -> tuple[float, float, float]:
    """(dearest fresh-input rate, cache-read rate, output rate) for a prompt this long."""
    long_band = (
        price.long_prompt_threshold is not None and input_tokens > price.long_prompt_threshold
    )
    fresh = [price.input, price.cache_write]
    read, output = price.cache_read, price.output
    if long_band:
        fresh += [r for r in (price.long_input, price.long_cache_write) if r is not None]
        read = price.long_cache_read if price.long_cache_read is not None else read
        output = price.long_output if price.long_output is not None else output
    return max(fresh), read, output


def worst_input_usd(price: PriceRow, input_tokens: int, cached_prefix_tokens: int = 0) -> float:
    """Most the prompt can cost: the prefix the previous request cached at the cache-read
    rate, every other token at the dearest input rate."""
    fresh_rate, read_rate, _ = _input_rates(price, input_tokens)
    cached = min(max(cached_prefix_tokens, 0), input_tokens)
    return ((input_tokens - cached) * fresh_rate + cached * read_rate) / TOKENS_PER_MILLION


def fit_call(
    budget: PhaseBudget,
    *,
    price: PriceRow,
    estimated_input_tokens: int,
    max_tokens: int,
    elapsed_seconds: float,
    cached_prefix_tokens: int = 0,
    min_output_tokens: int = MIN_USEFUL_OUTPUT_TOKENS,
) -> Verdict:
    """Like :func:`check_call`, but a call that does not fit at ``max_tokens`` is sized
    down: its output limit becomes what the money and tokens left pay for. Refused only
    when that is below a useful minimum. Spend stays inside every cap: the output limit
    is a hard limit of the API."""
    caps, spent = budget.caps, budget.spent
    verdict = check_call(
        budget,
        price=price,
        estimated_input_tokens=estimated_input_tokens,
        max_tokens=0,
        elapsed_seconds=elapsed_seconds,
    )
    if not verdict.allowed and verdict.limit in (LimitKind.iterations, LimitKind.wall_clock):
        return verdict
    _, _, output_rate = _input_rates(price, estimated_input_tokens)
    input_usd = worst_input_usd(price, estimated_input_tokens, cached_prefix_tokens)
    usd_left = caps.usd - spent.usd - input_usd
    by_usd = int(usd_left * TOKENS_PER_MILLION / output_rate) if output_rate > 0 else max_tokens
    by_tokens = caps.tokens - spent.tokens - estimated_input_tokens
    fitted = min(max_tokens, by_usd, by_tokens)
    if fitted >= min(min_output_tokens, max_tokens):
        return Verdict(allowed=True, max_tokens=fitted)
    if by_tokens < by_usd:
        return Verdict(
            allowed=False,
            limit=LimitKind.tokens,
            reason=(
                f"token cap: next call needs {estimated_input_tokens} input tokens and at least "
                f"{min(min_output_tokens, max_tokens)} output, "
                f"{max(caps.tokens - spent.tokens, 0)} of {caps.tokens} left"
            ),
        )
    least = input_usd + min(min_output_tokens, max_tokens) * output_rate / TOKENS_PER_MILLION
    return Verdict(
        allowed=False,
        limit=LimitKind.usd,
        reason=(
            f"USD cap: next call needs at least ${least:.4f}, "
            f"${max(caps.usd - spent.usd, 0):.4f} of ${caps.usd:.2f} left"
        ),
    )


def check_call(
    budget: PhaseBudget,
    *,
    price: PriceRow,
    estimated_input_tokens: int,
    max_tokens: int,
    elapsed_seconds: float,
) -> Verdict:
    """Decide before a model call whether its worst case stays inside every cap."""
    caps, spent = budget.caps, budget.spent
    if spent.iterations >= caps.iterations:
        return Verdict(
            allowed=False,
            limit=LimitKind.iterations,
            reason=f"iteration cap reached ({spent.iterations}/{caps.iterations})",
        )
    if elapsed_seconds >= caps.wall_clock_seconds:
        return Verdict(
            allowed=False,
            limit=LimitKind.wall_clock,
            reason=(
                f"wall-clock cap reached ({elapsed_seconds:.0f}s of {caps.wall_clock_seconds:.0f}s)"
            ),
        )
    needed_tokens = estimated_input_tokens + max_tokens
    if spent.tokens + needed_tokens > caps.tokens:
        return Verdict(
            allowed=False,
            limit=LimitKind.tokens,
            reason=(
                f"token cap: next call may use {needed_tokens} tokens, "
                f"{max(caps.tokens - spent.tokens, 0)} of {caps.tokens} left"
            ),
        )
    worst = worst_case_usd(price, estimated_input_tokens, max_tokens)
    if spent.usd + worst > caps.usd:
        return Verdict(
            allowed=False,
            limit=LimitKind.usd,
            reason=(
                f"USD cap: next call may cost ${worst:.4f}, "
                f"${max(caps.usd - spent.usd, 0):.4f} of ${caps.usd:.2f} left"
            ),
        )
    return Verdict(allowed=True)


class BudgetBook(BaseModel):
    """All phase budgets of one run; lives in workflow state."""

    phases: dict[str, PhaseBudget] = Field(default_factory=dict)

    def open(self, phase: str, caps: BudgetCaps, group: str | None = None) -> PhaseBudget:
        if phase not in self.phases:
            self.phases[phase] = PhaseBudget(phase=phase, caps=caps, group=group)
        return self.phases[phase]

    def knows(self, name: str | None) -> bool:
        return name is None or any(b.answers_to(name) for b in self.phases.values())

    def apply_raise(self, change: BudgetRaise) -> None:
        if not self.knows(change.phase):
            known = ", ".join(sorted(self.phases)) or "none yet"
            raise ValueError(f"unknown phase {change.phase!r}; known: {known}")
        for budget in self.phases.values():
            if budget.answers_to(change.phase):
                budget.caps = raised(budget.caps, change)

    def status(self) -> BudgetStatus:
        phases = list(self.phases.values())
        return BudgetStatus(
            phases=phases,
            total_usd=round(sum(p.spent.usd for p in phases), 6),
            total_tokens=sum(p.spent.tokens for p in phases),
        )


def raised(caps: BudgetCaps, change: BudgetRaise) -> BudgetCaps:
    """``caps`` lifted by the amounts in ``change``, never past :mod:`prflow.limits`."""
    return BudgetCaps(
        usd=min(caps.usd + change.add_usd, MAX_USD),
        tokens=min(caps.tokens + change.add_tokens, MAX_TOKENS),
        iterations=min(caps.iterations + change.add_iterations, MAX_ITERATIONS),
        wall_clock_seconds=min(caps.wall_clock_seconds + change.add_seconds, MAX_SECONDS),
    )
