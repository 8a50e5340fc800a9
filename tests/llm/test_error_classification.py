"""Which API failures Temporal retries, and the wait the API asked for."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from prflow.llm.errors import is_retryable_status, retry_after_seconds


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 413, 422])
def test_requests_the_api_rejected_are_not_retried(status: int) -> None:
    assert not is_retryable_status(status)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_failures_are_retried(status: int) -> None:
    assert is_retryable_status(status)


def test_an_exhausted_spend_limit_is_not_retried_although_it_is_a_429() -> None:
    assert not is_retryable_status(429, "enforced_spend_limit_reached")
    assert is_retryable_status(429, "some_other_code")


def test_retry_after_in_seconds() -> None:
    assert retry_after_seconds({"Retry-After": "7"}) == 7.0
    assert retry_after_seconds({"retry-after": "1.5"}) == 1.5


def test_retry_after_ms_is_preferred_for_its_precision() -> None:
    assert retry_after_seconds({"retry-after": "3", "retry-after-ms": "2500"}) == 2.5


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 3, 2, 11, 0, 0, tzinfo=UTC)
    headers = {"retry-after": "Mon, 02 Mar 2026 11:00:30 GMT"}
    assert retry_after_seconds(headers, now=now) == 30.0


@pytest.mark.parametrize(
    "headers",
    [{}, {"retry-after": "soon"}, {"retry-after": "-4"}, {"retry-after-ms": "nan"}],
)
def test_missing_or_unusable_hints_give_no_delay(headers: dict[str, str]) -> None:
    assert retry_after_seconds(headers) is None


def test_absurd_hints_are_capped_at_an_hour() -> None:
    assert retry_after_seconds({"retry-after": "86400"}) == 3600.0
