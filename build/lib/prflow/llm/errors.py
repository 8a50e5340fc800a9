"""Which Messages API failures are worth retrying, and after how long.

Temporal owns retrying (the SDK's own retries are off), so every failure is
sorted here: a request the API rejected as wrong will be rejected again and
must fail fast; overload, rate limits, server errors, conflicts and timeouts
pass, and the API's ``retry-after`` hint sets the next delay.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRYABLE_STATUSES = frozenset({408, 409, 429})
NON_RETRYABLE_STATUSES = frozenset({400, 401, 402, 403, 404, 413, 422})
# A 429 with this code is a spent monthly limit, not a rate limit: waiting won't help.
SPEND_LIMIT_ERROR_CODE = "enforced_spend_limit_reached"
MAX_RETRY_AFTER_SECONDS = 3600.0


def is_retryable_status(status: int, error_code: str | None = None) -> bool:
    """Whether an HTTP error status from the API can succeed on a later attempt."""
    if status == 429 and error_code == SPEND_LIMIT_ERROR_CODE:
        return False
    if status in RETRYABLE_STATUSES:
        return True
    if status in NON_RETRYABLE_STATUSES:
        return False
    return status >= 500


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The server's requested wait, from ``retry-after-ms`` or ``retry-after``.

    ``retry-after`` may be seconds or an HTTP date; ``now`` anchors the date
    form. Unparsable, negative or absent hints give None; absurd ones are capped.
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    seconds = _parse_milliseconds(lowered.get("retry-after-ms"))
    if seconds is None:
        seconds = _parse_seconds_or_date(lowered.get("retry-after"), now)
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_AFTER_SECONDS)


def _parse_milliseconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value) / 1000.0
    except ValueError:
        return None


def _parse_seconds_or_date(value: str | None, now: datetime | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - (now or datetime.now(UTC))).total_seconds()
