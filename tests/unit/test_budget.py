"""The pre-call budget check: worst case against every cap, and raising caps."""

from __future__ import annotations

import pytest

from prflow.agent.budget import (
    BudgetBook,
    BudgetCaps,
    BudgetRaise,
    LimitKind,
    PhaseBudget,
    Spend,
    check_call,
    worst_case_usd,
)
from prflow.config import PriceRow

PRICE = PriceRow(input=2.0, output=10.0, cache_write=2.5, cache_read=0.1)
BANDED = PriceRow(
    input=0.1,
    output=0.5,
    cache_write=0.125,
    cache_read=0.01,
    long_prompt_threshold=100_000,
    long_input=0.5,
    long_output=2.5,
    long_cache_write=0.625,
    long_cache_read=0.05,
)


def _budget(usd: float = 1.0, tokens: int = 1_000_000, iterations: int = 30) -> PhaseBudget:
    return PhaseBudget(
        phase="agent",
        caps=BudgetCaps(usd=usd, tokens=tokens, iterations=iterations, wall_clock_seconds=180),
    )


def test_worst_case_prices_input_at_cache_write_rate_and_full_output() -> None:
    # 10k input at $2.50/M (cache write is dearer than plain input) + 4k output at $10/M
    assert worst_case_usd(PRICE, 10_000, 4_000) == pytest.approx(0.025 + 0.04)


def test_worst_case_uses_long_band_above_threshold() -> None:
    short = worst_case_usd(BANDED, 100_000, 1_000)
    long = worst_case_usd(BANDED, 100_001, 1_000)
    assert short == pytest.approx((100_000 * 0.125 + 1_000 * 0.5) / 1e6)
    assert long == pytest.approx((100_001 * 0.625 + 1_000 * 2.5) / 1e6)


def test_call_allowed_when_worst_case_fits() -> None:
    verdict = check_call(
        _budget(usd=0.07),
        price=PRICE,
        estimated_input_tokens=10_000,
        max_tokens=4_000,
        elapsed_seconds=0,
    )
    assert verdict.allowed


def test_call_refused_before_it_could_exceed_usd_cap() -> None:
    budget = _budget(usd=0.10)
    budget.spent = Spend(usd=0.05)
    verdict = check_call(
        budget, price=PRICE, estimated_input_tokens=10_000, max_tokens=4_000, elapsed_seconds=0
    )
    assert not verdict.allowed
    assert verdict.limit == LimitKind.usd
    assert "$0.0650" in verdict.reason


def test_token_iteration_and_clock_caps() -> None:
    tokens = check_call(
        _budget(tokens=5_000),
        price=PRICE,
        estimated_input_tokens=2_000,
        max_tokens=4_000,
        elapsed_seconds=0,
    )
    assert tokens.limit == LimitKind.tokens
    spent = _budget(iterations=2)
    spent.spent = Spend(iterations=2)
    assert (
        check_call(
            spent, price=PRICE, estimated_input_tokens=1, max_tokens=1, elapsed_seconds=0
        ).limit
        == LimitKind.iterations
    )
    assert (
        check_call(
            _budget(), price=PRICE, estimated_input_tokens=1, max_tokens=1, elapsed_seconds=181
        ).limit
        == LimitKind.wall_clock
    )


def test_raise_lifts_a_refused_call() -> None:
    book = BudgetBook()
    budget = book.open(
        "agent", BudgetCaps(usd=0.01, tokens=10**6, iterations=3, wall_clock_seconds=60)
    )
    args = {
        "price": PRICE,
        "estimated_input_tokens": 10_000,
        "max_tokens": 4_000,
        "elapsed_seconds": 0,
    }
    assert not check_call(budget, **args).allowed  # type: ignore[arg-type]
    book.apply_raise(BudgetRaise(add_usd=1.0))
    assert check_call(book.phases["agent"], **args).allowed  # type: ignore[arg-type]
    assert book.status().phases[0].caps.usd == pytest.approx(1.01)


def test_raise_of_unknown_phase_is_rejected() -> None:
    book = BudgetBook()
    book.open("agent", BudgetCaps(usd=1, tokens=1, iterations=1, wall_clock_seconds=1))
    with pytest.raises(ValueError, match="unknown phase 'review'"):
        book.apply_raise(BudgetRaise(phase="review", add_usd=1))
