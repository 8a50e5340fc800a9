"""A call sized to fit the budget: lower max_tokens rather than refuse, never overspend.

The case from werkzeug 2.3.7→3.0.0: a deep dive with $0.0589 of $0.08 left was
refused because its worst case ($0.0828) priced 8,192 output tokens and the
whole prompt at the cache-write rate.
"""

from __future__ import annotations

import pytest

from prflow.agent.budget import (
    BudgetCaps,
    LimitKind,
    PhaseBudget,
    Spend,
    check_call,
    fit_call,
    worst_case_usd,
    worst_input_usd,
)
from prflow.config import PriceRow

SONNET = PriceRow(input=3.0, output=15.0, cache_write=3.75, cache_read=0.30)


def _budget(usd: float, spent_usd: float, tokens: int = 2_000_000) -> PhaseBudget:
    return PhaseBudget(
        phase="deep_dives:cross-ref-i3",
        caps=BudgetCaps(usd=usd, tokens=tokens, iterations=8, wall_clock_seconds=600),
        spent=Spend(usd=spent_usd, input_tokens=10_000, iterations=2, calls=2),
    )


def _cost(input_usd: float, output_tokens: int) -> float:
    return input_usd + output_tokens * SONNET.output / 1_000_000


def test_the_refused_deep_dive_runs_with_a_smaller_output_limit_inside_its_cap() -> None:
    budget = _budget(0.08, 0.0211)
    args = {"price": SONNET, "estimated_input_tokens": 11_600, "elapsed_seconds": 30.0}
    refused = check_call(budget, max_tokens=8192, **args)  # type: ignore[arg-type]
    assert not refused.allowed and refused.limit == LimitKind.usd

    fitted = fit_call(budget, max_tokens=8192, **args)  # type: ignore[arg-type]
    assert fitted.allowed and fitted.max_tokens is not None
    assert 1024 <= fitted.max_tokens < 8192
    worst = _cost(worst_input_usd(SONNET, 11_600), fitted.max_tokens)
    assert budget.spent.usd + worst <= budget.caps.usd, "the sized call can never overspend"
    one_more = _cost(worst_input_usd(SONNET, 11_600), fitted.max_tokens + 2)
    assert budget.spent.usd + one_more > budget.caps.usd, "it gets all the budget pays for"


def test_a_cached_prefix_is_priced_at_the_cache_read_rate() -> None:
    full = worst_input_usd(SONNET, 100_000)
    cached = worst_input_usd(SONNET, 100_000, cached_prefix_tokens=90_000)
    assert full == pytest.approx(worst_case_usd(SONNET, 100_000, 0))
    assert cached == pytest.approx((10_000 * 3.75 + 90_000 * 0.30) / 1_000_000)
    budget = _budget(0.40, 0.0)
    without = fit_call(budget, price=SONNET, estimated_input_tokens=100_000, max_tokens=8192,
                       elapsed_seconds=0)  # fmt: skip
    with_cache = fit_call(budget, price=SONNET, estimated_input_tokens=100_000, max_tokens=8192,
                          elapsed_seconds=0, cached_prefix_tokens=90_000)  # fmt: skip
    assert without.allowed and with_cache.allowed
    assert without.max_tokens is not None and with_cache.max_tokens == 8192
    assert without.max_tokens < 8192


def test_below_a_useful_output_the_call_is_refused_and_says_which_cap() -> None:
    budget = _budget(0.08, 0.07)
    verdict = fit_call(budget, price=SONNET, estimated_input_tokens=1_000, max_tokens=8192,
                       elapsed_seconds=0)  # fmt: skip
    assert not verdict.allowed and verdict.limit == LimitKind.usd
    assert verdict.reason.startswith("USD cap: next call needs at least $")

    tight = _budget(10.0, 0.0, tokens=10_000 + 5_000 + 500)
    verdict = fit_call(tight, price=SONNET, estimated_input_tokens=5_000, max_tokens=8192,
                       elapsed_seconds=0)  # fmt: skip
    assert not verdict.allowed and verdict.limit == LimitKind.tokens


def test_a_plan_asking_less_than_the_minimum_is_not_refused_for_it() -> None:
    verdict = fit_call(_budget(1.0, 0.0), price=SONNET, estimated_input_tokens=500,
                       max_tokens=256, elapsed_seconds=0)  # fmt: skip
    assert (verdict.allowed, verdict.max_tokens) == (True, 256)


def test_turn_and_clock_caps_still_refuse_outright() -> None:
    budget = _budget(1.0, 0.0)
    budget.spent.iterations = 8
    verdict = fit_call(budget, price=SONNET, estimated_input_tokens=500, max_tokens=256,
                       elapsed_seconds=0)  # fmt: skip
    assert verdict.limit == LimitKind.iterations
