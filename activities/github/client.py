"""A PyGithub client for the configured API URL, authenticated from the worker's environment.

The client is built inside each activity (or CLI call), so no token ever
enters workflow history. PyGithub's own retrying is switched off: failures
are classified in :mod:`activities.github.errors` and Temporal retries.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from prflow.config import cached_settings
from prflow.errors import VERBOSE_ENV, UserError
from prflow.pr_identifier import OWNER_PATTERN, REPO_PATTERN

TOKEN_ENV_VARS = ("GITHUB_TOKEN", "GH_TOKEN")
APP_ID_ENV = "PRFLOW_GITHUB_APP_ID"
APP_KEY_ENV = "PRFLOW_GITHUB_APP_PRIVATE_KEY"
APP_KEY_PATH_ENV = "PRFLOW_GITHUB_APP_PRIVATE_KEY_PATH"
APP_INSTALLATION_ENV = "PRFLOW_GITHUB_APP_INSTALLATION_ID"
REQUEST_TIMEOUT_SECONDS = 30
GH_TIMEOUT_SECONDS = 5
PAGE_SIZE = 100  # GitHub's maximum: fewer round trips when scanning lists

if TYPE_CHECKING:  # PyGithub (with requests, PyJWT, cryptography) loads on first use
    import github
    from github import Auth


def github_client() -> github.Github:
    """A PyGithub client for the configured API URL, authenticated from the environment.

    A GitHub App (all three ``PRFLOW_GITHUB_APP_*`` settings) wins over a
    token, since it is the more deliberate configuration; otherwise
    ``GITHUB_TOKEN`` or ``GH_TOKEN``. Raises :class:`UserError` when neither
    is usable.
    """
    import github

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


def repo_full_name(owner: str, repo: str) -> str:
    """``owner/repo`` for PyGithub's request paths, each segment checked by GitHub's rules and
    percent-encoded, so no request can leave ``/repos/{owner}/{repo}`` (an HTTP client
    would normalise ``../../etc`` into ``/etc`` and send the bot's token there)."""
    if (
        not re.fullmatch(OWNER_PATTERN, owner)
        or not re.fullmatch(REPO_PATTERN, repo)
        or repo in {".", ".."}
    ):
        shown = f"{owner}/{repo}"[:120]
        raise UserError(f"{shown!r} is not a GitHub repository (owner/name); check the PR")
    return f"{quote(owner, safe='')}/{quote(repo, safe='')}"


def _auth_from_environment() -> Auth.Auth:
    from github import Auth

    app_settings = {
        name: os.environ.get(name, "").strip()
        for name in (APP_ID_ENV, APP_INSTALLATION_ENV, APP_KEY_ENV, APP_KEY_PATH_ENV)
    }
    if any(app_settings.values()):
        return _app_installation_auth(app_settings)
    token = _token_from_environment()
    if token is None:
        raise UserError(missing_credentials_message(COMMAND_PERMISSIONS))
    return Auth.Token(token)


COMMAND_PERMISSIONS = (
    "reading needs pull requests, contents, checks, commit statuses and actions: read; "
    "posting comments and reviews adds pull requests and issues: write, opening a draft "
    "pull request contents and pull requests: write"
)
"""What prflow's commands ask of a token, for the message that says none was found."""


def missing_credentials_message(permissions: str) -> str:
    """One line: where prflow looks for GitHub credentials, then what they must allow."""
    return (
        "No GitHub credentials: set GITHUB_TOKEN (or GH_TOKEN), log in with `gh auth login`, "
        f"or configure a GitHub App with {APP_ID_ENV}, {APP_KEY_ENV} (or {APP_KEY_PATH_ENV}) "
        f"and {APP_INSTALLATION_ENV}; {permissions}."
    )


def github_credentials_found() -> bool:
    """Whether a GitHub App, a token variable or a logged-in ``gh`` offers credentials
    (their validity is GitHub's to judge, on the first call)."""
    app_settings = (APP_ID_ENV, APP_INSTALLATION_ENV, APP_KEY_ENV, APP_KEY_PATH_ENV)
    if any(os.environ.get(name, "").strip() for name in app_settings):
        return True
    return _token_from_environment() is not None


def _token_from_environment() -> str | None:
    for name in TOKEN_ENV_VARS:
        token = os.environ.get(name, "").strip()
        if token:
            return token
    return gh_cli_token(_web_host(cached_settings().github_api_url))


def _web_host(api_url: str) -> str:
    """``github.com`` for the public API, the Enterprise host otherwise (as ``gh`` names it)."""
    host = urlsplit(api_url).hostname or "github.com"
    return "github.com" if host == "api.github.com" else host


@lru_cache(maxsize=4)
def gh_cli_token(host: str) -> str | None:
    """The token of a logged-in GitHub CLI (``gh auth token``), or None.

    Asked once per process, only when no token variable is set; ``prflow -v`` says so.
    """
    gh = shutil.which("gh")
    if gh is None:
        return None
    try:
        done = subprocess.run(
            [gh, "auth", "token", "--hostname", host],
            capture_output=True,
            text=True,
            timeout=GH_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    token = done.stdout.strip()
    if done.returncode != 0 or not token:
        return None
    if os.environ.get(VERBOSE_ENV):
        print(
            f"prflow: no GITHUB_TOKEN or GH_TOKEN set; using the GitHub CLI's token for {host} "
            "(gh auth token)",
            file=sys.stderr,
            flush=True,
        )
    return token


def _app_installation_auth(app_settings: Mapping[str, str]) -> Auth.AppInstallationAuth:
    from github import Auth

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
    pem = key.replace("\\n", "\n")
    _check_private_key(pem, APP_KEY_ENV if app_settings[APP_KEY_ENV] else APP_KEY_PATH_ENV)
    app_auth = Auth.AppAuth(app_settings[APP_ID_ENV], pem)
    return app_auth.get_installation_auth(int(installation))


def _check_private_key(pem: str, source: str) -> None:
    """Refuse a key that is not a PEM private key, naming the setting it came from (PyJWT's
    own "Could not parse the provided public key" names neither)."""
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    if "-----BEGIN" not in pem or "PRIVATE KEY-----" not in pem:
        problem = "it has no -----BEGIN ... PRIVATE KEY----- block"
    else:
        try:
            load_pem_private_key(pem.strip().encode(), password=None)
            return
        except (ValueError, TypeError) as err:
            problem = f"it does not parse ({str(err).rstrip('.')})"
    raise UserError(
        f"{source} is not a usable GitHub App private key: {problem}; use the whole .pem file "
        f"GitHub generated, from -----BEGIN to -----END (or set {APP_KEY_PATH_ENV} to its path)"
    )


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


def graphql(client: github.Github, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    """Run a GraphQL query at the client's GraphQL URL (``/graphql``, ``/api/graphql`` on GHE).

    Not-found errors come back as PyGithub's ``UnknownObjectException`` (a 404),
    other GraphQL errors as a ``GithubException``, so callers classify them
    like REST failures.
    """
    _, data = client.requester.graphql_query(query, variables)
    return data
