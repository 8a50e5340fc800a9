"""Usage → USD with the configured price table, including cache and the long-prompt band."""

from __future__ import annotations

import pytest

from prflow.config import PriceRow
from prflow.errors import UserError
from prflow.llm.pricing import price_for, usd_for
from prflow.llm.usage import Usage

FLAT = PriceRow(input=3.0, output=15.0, cache_write=3.75, cache_read=0.30)
BANDED = PriceRow(
    input=1.0,
    output=5.0,
    cache_write=1.25,
    cache_read=0.10,
    long_prompt_threshold=100_000,
    long_input=2.0,
    long_output=7.5,
    long_cache_write=2.5,
    long_cache_read=0.20,
)


def test_each_token_kind_is_billed_at_its_own_rate() -> None:
    usage = Usage(
        input_tokens=1_000, output_tokens=500, cache_write_tokens=2_000, cache_read_tokens=4_000
    )
    expected = (1_000 * 3.0 + 500 * 15.0 + 2_000 * 3.75 + 4_000 * 0.30) / 1_000_000
    assert usd_for(usage, FLAT) == pytest.approx(expected)


def test_a_cache_read_costs_a_tenth_of_fresh_input() -> None:
    fresh = usd_for(Usage(input_tokens=50_000), FLAT)
    cached = usd_for(Usage(cache_read_tokens=50_000), FLAT)
    assert cached == pytest.approx(fresh / 10)


def test_no_usage_costs_nothing() -> None:
    assert usd_for(Usage(), BANDED) == 0.0


def test_a_prompt_at_the_threshold_stays_in_the_base_band() -> None:
    usage = Usage(input_tokens=100_000, output_tokens=1_000)
    assert usd_for(usage, BANDED) == pytest.approx((100_000 * 1.0 + 1_000 * 5.0) / 1_000_000)


def test_a_long_prompt_bills_every_token_of_the_request_at_long_rates() -> None:
    usage = Usage(
        input_tokens=60_000,
        output_tokens=2_000,
        cache_write_tokens=30_000,
        cache_read_tokens=20_000,
    )
    expected = (60_000 * 2.0 + 2_000 * 7.5 + 30_000 * 2.5 + 20_000 * 0.20) / 1_000_000
    assert usd_for(usage, BANDED) == pytest.approx(expected)


def test_cached_tokens_count_towards_the_long_prompt_threshold() -> None:
    short = Usage(input_tokens=50_000, output_tokens=100)
    long_by_cache = Usage(input_tokens=50_000, output_tokens=100, cache_read_tokens=60_000)
    assert usd_for(short, BANDED) == pytest.approx((50_000 * 1.0 + 100 * 5.0) / 1e6)
    assert usd_for(long_by_cache, BANDED) == pytest.approx(
        (50_000 * 2.0 + 100 * 7.5 + 60_000 * 0.20) / 1e6
    )


def test_a_row_without_long_rates_never_changes_band() -> None:
    huge = Usage(input_tokens=900_000, output_tokens=10)
    assert usd_for(huge, FLAT) == pytest.approx((900_000 * 3.0 + 10 * 15.0) / 1e6)


def test_a_long_band_missing_one_rate_keeps_the_base_rate_for_it() -> None:
    partial = PriceRow(
        input=1.0, output=5.0, cache_write=1.25, cache_read=0.1,
        long_prompt_threshold=10, long_input=2.0,
    )  # fmt: skip
    usage = Usage(input_tokens=100, output_tokens=100)
    assert usd_for(usage, partial) == pytest.approx((100 * 2.0 + 100 * 5.0) / 1e6)


def test_price_for_returns_the_configured_row() -> None:
    assert price_for("model-a", {"model-a": FLAT}) is FLAT


def test_an_unpriced_model_is_a_user_error_naming_the_model_and_the_config_key() -> None:
    with pytest.raises(UserError) as caught:
        price_for("claude-unknown-9", {"model-a": FLAT})
    message = str(caught.value)
    assert "claude-unknown-9" in message
    assert "models.prices" in message
