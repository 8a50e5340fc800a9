"""GitHub I/O as Temporal activities: resolve a pull request, upsert its prflow comment.

The client is built inside each activity from the worker's environment, so no
token ever enters workflow history. PyGithub's own retrying is switched off:
every failure is classified here instead, and Temporal retries the transient
ones (rate limits, 5xx, lost connections) at the delay GitHub asked for,
while mistakes the user must fix (bad token, unknown PR, missing permission)
fail at once with a message that says what to do.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import github
import requests
from github import Auth, GithubException
from github.IssueComment import IssueComment
from temporalio import activity
from temporalio.exceptions import ApplicationError

from prflow.config import cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.github_models import (
    CommentUpsertInput,
    CommentUpsertResult,
    PullRequestInfo,
    comment_body,
)
from prflow.pr_identifier import PullRequestRef
from prflow.store.blobs import get_text

RATE_LIMITED_TYPE = "GitHubRateLimited"
UNAVAILABLE_TYPE = "GitHubUnavailable"
TOKEN_ENV_VARS = ("GITHUB_TOKEN", "GH_TOKEN")
APP_ID_ENV = "PRFLOW_GITHUB_APP_ID"
APP_KEY_ENV = "PRFLOW_GITHUB_APP_PRIVATE_KEY"
APP_KEY_PATH_ENV = "PRFLOW_GITHUB_APP_PRIVATE_KEY_PATH"
APP_INSTALLATION_ENV = "PRFLOW_GITHUB_APP_INSTALLATION_ID"
REQUEST_TIMEOUT_SECONDS = 30
PAGE_SIZE = 100  # GitHub's maximum: fewer round trips when scanning comments
SECONDARY_LIMIT_DELAY = timedelta(seconds=60)  # GitHub: wait at least a minute
TRANSIENT_STATUSES = frozenset({408, 409, 429})

T = TypeVar("T")


# --- the client -----------------------------------------------------------------------------


def github_client() -> github.Github:
    """A PyGithub client for the configured API URL, authenticated from the environment.

    A GitHub App (all three ``PRFLOW_GITHUB_APP_*`` settings) wins over a
    token, since it is the more deliberate configuration; otherwise
    ``GITHUB_TOKEN`` or ``GH_TOKEN``. Raises :class:`UserError` when neither
    is usable.
    """
    return github.Github(
        base_url=cached_settings().github_api_url.rstrip("/"),
        auth=_auth_from_environment(),
        retry=None,
        timeout=REQUEST_TIMEOUT_SECONDS,
        per_page=PAGE_SIZE,
        user_agent="prflow",
        # GitHub asks for serial requests and a pause between writes, not between reads.
        seconds_between_requests=None,
    )


def _auth_from_environment() -> Auth.Auth:
    app_settings = {
        name: os.environ.get(name, "").strip()
        for name in (APP_ID_ENV, APP_INSTALLATION_ENV, APP_KEY_ENV, APP_KEY_PATH_ENV)
    }
    if any(app_settings.values()):
        return _app_installation_auth(app_settings)
    for name in TOKEN_ENV_VARS:
        token = os.environ.get(name, "").strip()
        if token:
            return Auth.Token(token)
    raise UserError(
        "No GitHub credentials: set GITHUB_TOKEN (or GH_TOKEN) to a token that can read "
        f"pull requests and write comments, or configure a GitHub App with {APP_ID_ENV}, "
        f"{APP_KEY_ENV} (or {APP_KEY_PATH_ENV}) and {APP_INSTALLATION_ENV}."
    )


def _app_installation_auth(app_settings: Mapping[str, str]) -> Auth.AppInstallationAuth:
    key = app_settings[APP_KEY_ENV] or _read_private_key(app_settings[APP_KEY_PATH_ENV])
    missing = [
        name
        for name, value in (
            (APP_ID_ENV, app_settings[APP_ID_ENV]),
            (APP_INSTALLATION_ENV, app_settings[APP_INSTALLATION_ENV]),
            (f"{APP_KEY_ENV} or {APP_KEY_PATH_ENV}", key),
        )
        if not value
    ]
    if missing:
        raise UserError(f"GitHub App configuration is incomplete: set {', '.join(missing)}.")
    installation = app_settings[APP_INSTALLATION_ENV]
    if not installation.isdigit():
        raise UserError(f"{APP_INSTALLATION_ENV} must be the numeric installation id.")
    app_auth = Auth.AppAuth(app_settings[APP_ID_ENV], key.replace("\\n", "\n"))
    return app_auth.get_installation_auth(int(installation))


def _read_private_key(path: str) -> str:
    if not path:
        return ""
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"Cannot read the GitHub App private key at {path} ({exc.strerror}): "
            f"fix {APP_KEY_PATH_ENV}."
        ) from exc


# --- error classification ------------------------------------------------------------------


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
def _classified_errors(*, action: str, missing: str, permission: str) -> Iterator[None]:
    """Re-raise anything that escapes as an ``ApplicationError`` Temporal can act on."""
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


async def _in_thread(func: Callable[[], T]) -> T:
    """PyGithub blocks; keep the worker's event loop free while it waits on the network."""
    return await asyncio.to_thread(func)


# --- resolve a pull request ---------------------------------------------------------------


@activity.defn(name="github_resolve_pr")
async def resolve_pull_request(ref: PullRequestRef) -> PullRequestInfo:
    """Look up a pull request's branches, commits and clone URL."""
    return await _in_thread(lambda: _resolve(ref))


def fetch_pull_request(ref: PullRequestRef) -> PullRequestInfo:
    """The same lookup for callers outside a worker (the CLI naming a run before it starts).

    Mistakes the user must fix come out as :class:`UserError`; transient
    failures stay ``ApplicationError`` (retryable) for the caller to report.
    """
    try:
        return _resolve(ref)
    except ApplicationError as exc:
        if exc.type == USER_ERROR_TYPE:
            raise UserError(exc.message) from exc
        raise


def _resolve(ref: PullRequestRef) -> PullRequestInfo:
    repo_name = f"{ref.owner}/{ref.repo}"
    with _classified_errors(
        action=f"reading {ref.slug}",
        missing=f"Repository {repo_name} was not found",
        permission="read access to the repository's pull requests",
    ):
        repo = github_client().get_repo(repo_name)
    with _classified_errors(
        action=f"reading {ref.slug}",
        missing=f"Pull request #{ref.number} was not found in {repo_name}",
        permission="read access to the repository's pull requests",
    ):
        pull = repo.get_pull(ref.number)
        return PullRequestInfo(
            ref=ref,
            title=pull.title,
            html_url=pull.html_url,
            clone_url=pull.base.repo.clone_url,
            base_ref=pull.base.ref,
            base_sha=pull.base.sha,
            head_ref=pull.head.ref,
            head_sha=pull.head.sha,
            state=pull.state,
        )


# --- upsert the prflow comment --------------------------------------------------------------


@activity.defn(name="github_upsert_comment")
async def upsert_pr_comment(inp: CommentUpsertInput) -> CommentUpsertResult:
    """Edit the comment carrying ``inp.marker`` in place, or post it if there is none.

    Safe to retry: a retry after a lost response finds the comment it posted.
    """
    body = await _in_thread(
        lambda: get_text(cached_settings().resolved_database_url(), inp.body_key)
    )
    return await _in_thread(lambda: _upsert(inp, comment_body(body, inp.marker)))


def _upsert(inp: CommentUpsertInput, text: str) -> CommentUpsertResult:
    ref = inp.pr
    with _classified_errors(
        action=f"commenting on {ref.slug}",
        missing=f"Pull request #{ref.number} was not found in {ref.owner}/{ref.repo}",
        permission="write access to pull requests or issues (to post comments)",
    ):
        client = github_client()
        repo = client.withLazy(True).get_repo(f"{ref.owner}/{ref.repo}")
        issue = repo.get_issue(ref.number)
        if issue.pull_request is None:
            raise UserError(f"{ref.slug} is an issue, not a pull request: give a PR number.")
        existing = _find_marked_comment(issue.get_comments(), inp.marker, _own_login(client))
        if existing is None:
            posted = issue.create_comment(text)
            return CommentUpsertResult(comment_id=posted.id, url=posted.html_url, created=True)
        if existing.body != text:
            existing.edit(text)
        return CommentUpsertResult(comment_id=existing.id, url=existing.html_url, created=False)


def _own_login(client: github.Github) -> str | None:
    """The login comments are posted as, or None when the credentials cannot tell.

    GitHub App installation tokens may not read ``/user``; then a bot-authored
    comment carrying the marker is taken to be ours.
    """
    try:
        return str(client.get_user().login)
    except GithubException as exc:
        if exc.status in {403, 404}:
            return None
        raise


def _find_marked_comment(
    comments: Iterable[IssueComment], marker: str, own_login: str | None
) -> IssueComment | None:
    """The oldest comment with ``marker`` written by us (by a bot, when we cannot tell who
    we are): a person quoting the marker must never have their comment overwritten."""
    for comment in comments:
        if marker not in (comment.body or "") or comment.user is None:
            continue
        if own_login is None and comment.user.type == "Bot":
            return comment
        if own_login is not None and comment.user.login == own_login:
            return comment
    return None
