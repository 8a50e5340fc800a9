"""How the PR tools reach GitHub: credentials checked first, reads off the event loop, and
the durable wait on a Temporal that lives no longer than the call.

The PR tools only read, so the message for missing credentials names each tool's read
permission. A wait needs a Temporal server and workers: with ``TEMPORAL_ADDRESS`` the
cluster's; otherwise one already on the embedded port (``prflow server``) or one this call
starts and stops, with workers inside this process. No warm worker is started, since it
would outlive the server; nothing else is started before the credentials are known.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from prflow.errors import UserError
from prflow.mcp.own_loop import on_own_loop
from prflow.pr_tools.checks_report import ChecksReport
from prflow.pr_tools.run_models import PrChecksRequest

READ_PERMISSIONS = {
    "pr_comments": "pull requests: read",
    "pr_checks": "pull requests, checks, commit statuses and actions: read",
    "pr_stack": "pull requests and contents: read",
    "pr_threads": "pull requests: read",
    "pr_conflicts": "pull requests and contents: read",
    "pr_rebase": "pull requests and contents: read",
    "pr_permissions": "pull requests and metadata: read",
}
"""What each reading PR tool asks of a token or GitHub App."""
WRITE_PERMISSIONS = {
    "pr_reply": "pull requests: write",
    "pr_resolve": "pull requests: write and write access to the repository",
}
"""The PR tools that write, and what they need."""

M = TypeVar("M", bound=BaseModel)


def missing_credentials() -> str:
    from activities.github.client import missing_credentials_message

    each = "; ".join(
        f"{tool} needs {needs}" for tool, needs in {**READ_PERMISSIONS, **WRITE_PERMISSIONS}.items()
    )
    return missing_credentials_message(f"the PR tools need: {each}")


def _credentials_found() -> bool:
    from activities.github.client import github_credentials_found

    return github_credentials_found()


async def require_credentials() -> None:
    """Refuse with one line, before anything starts, when no GitHub credentials are set."""
    if not await asyncio.to_thread(_credentials_found):  # imports PyGithub's side, may run gh
        raise UserError(missing_credentials())


async def read_github(read: Callable[[], M]) -> M:
    """One GitHub read, off the event loop (``read`` imports what it needs there, so a
    first call holds up no other request); an outage is one line too."""
    from temporalio.exceptions import ApplicationError

    await require_credentials()
    try:
        return await asyncio.to_thread(read)
    except ApplicationError as err:
        raise UserError(f"GitHub is not answering ({err.message}); try again later") from err


async def wait_for_checks(request: PrChecksRequest) -> ChecksReport:
    """The ``pr_checks`` workflow's report, run where the module doc says."""
    from prflow.config import load_settings

    settings = load_settings()
    if not settings.temporal.address:  # this process's workers will read GitHub
        await require_credentials()
    settings.temporal.warm_seconds = 0  # a warm worker would outlive the MCP server

    async def run_and_fetch() -> ChecksReport:
        from prflow.cli.pr_cmd import wait_for_checks as start_follow_fetch

        return await start_follow_fetch(request, settings)

    return await on_own_loop(run_and_fetch)
