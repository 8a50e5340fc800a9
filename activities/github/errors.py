"""GitHub failures as Temporal errors that retry only when they should.

Transient failures (rate limits, 5xx, lost connections) retry at the delay
GitHub asked for; mistakes the user must fix (bad token, unknown PR, missing
permission) fail at once, non-retryable, with a message that says what to do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from temporalio.exceptions import ApplicationError

from prflow.config import cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError

RATE_LIMITED_TYPE = "GitHubRateLimited"
UNAVAILABLE_TYPE = "GitHubUnavailable"
SECONDARY_LIMIT_DELAY = timedelta(seconds=60)  # GitHub: wait at least a minute
TRANSIENT_STATUSES = frozenset({408, 409, 429})

T = TypeVar("T")

if TYPE_CHECKING:  # PyGithub and requests load with the first GitHub call
    from github import GithubException


def classify_github_error(
    exc: GithubException, *, action: str, missing: str, permission: str
) -> ApplicationError:
    """Map a GitHub error response to a Temporal error that retries only when it should.

    ``action`` says what was being done, ``missing`` what a 404 means here and
    ``permission`` what the token needs; they make the message actionable.
    """
    status = exc.status
    headers = {key.lower(): value for key, value in (exc.headers or {}).items()}
    detail = _error_detail(exc)
    if status in {403, 429} and _is_rate_limited(headers, detail):
        return ApplicationError(
            f"GitHub rate limit hit while {action} ({status}: {detail}); retrying later.",
            type=RATE_LIMITED_TYPE,
            next_retry_delay=_retry_delay(headers) or SECONDARY_LIMIT_DELAY,
        )
    if status in TRANSIENT_STATUSES or status >= 500:
        return ApplicationError(
            f"GitHub failed while {action} ({status}: {detail}); retrying.",
            type=UNAVAILABLE_TYPE,
            next_retry_delay=_retry_delay(headers),
        )
    if status == 401:
        message = (
            f"GitHub rejected the credentials while {action} (401: {detail}). Check that "
            "GITHUB_TOKEN (or GH_TOKEN, or the PRFLOW_GITHUB_APP_* settings) is valid and "
            "not expired."
        )
    elif status == 403:
        message = (
            f"GitHub refused {action} (403: {detail}). The token needs {permission}; for an "
            "organisation, also check that it is authorised for SSO and allowed by the "
            "organisation's token policy."
        )
    elif status == 404:
        message = (
            f"{missing} (404 while {action}). Check the owner, repository and number, and "
            "that the token can see the repository (private repositories need the repo "
            "scope or an installation on that repository)."
        )
    elif status == 422:
        message = f"GitHub rejected {action} as invalid (422: {detail}). Check the input."
    else:
        message = f"GitHub answered {status} while {action}: {detail}."
    return ApplicationError(message, type=USER_ERROR_TYPE, non_retryable=True)


def _error_detail(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    message = str(data.get("message") or exc.message or "no message")
    errors = data.get("errors")
    if isinstance(errors, list) and errors:
        reasons = [
            str(item.get("message") or item.get("code") or item)
            if isinstance(item, dict)
            else str(item)
            for item in errors
        ]
        message = f"{message}: {'; '.join(reasons)}"
    return message


def _is_rate_limited(headers: Mapping[str, str], detail: str) -> bool:
    return (
        headers.get("x-ratelimit-remaining") == "0"
        or "retry-after" in headers
        or "rate limit" in detail.lower()
    )


def _retry_delay(headers: Mapping[str, str]) -> timedelta | None:
    """How long GitHub asked us to wait: ``Retry-After``, else until the rate-limit reset."""
    retry_after = headers.get("retry-after", "").strip()
    if retry_after:
        seconds = _seconds_from_retry_after(retry_after)
        if seconds is not None:
            return timedelta(seconds=max(seconds, 1.0))
    reset = headers.get("x-ratelimit-reset", "").strip()
    if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        return timedelta(seconds=max(int(reset) - time.time(), 0.0) + 1.0)
    return None


def _seconds_from_retry_after(value: str) -> float | None:
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


@contextmanager
def classified_errors(*, action: str, missing: str, permission: str) -> Iterator[None]:
    """Re-raise anything that escapes as an ``ApplicationError`` Temporal can act on."""
    import requests
    from github import GithubException

    try:
        yield
    except UserError as exc:
        raise ApplicationError(exc.message, type=USER_ERROR_TYPE, non_retryable=True) from exc
    except GithubException as exc:
        raise classify_github_error(
            exc, action=action, missing=missing, permission=permission
        ) from exc
    except (requests.ConnectionError, requests.Timeout) as exc:
        host = urlsplit(cached_settings().github_api_url).netloc
        raise ApplicationError(
            f"Could not reach GitHub at {host} while {action}: {exc}", type=UNAVAILABLE_TYPE
        ) from exc


def user_errors_raised(func: Callable[[], T]) -> T:
    """Run ``func`` outside a worker: user mistakes come out as :class:`UserError`.

    Transient failures stay ``ApplicationError`` (retryable) for the caller to report.
    """
    try:
        return func()
    except ApplicationError as exc:
        if exc.type == USER_ERROR_TYPE:
            raise UserError(exc.message) from exc
        raise
