"""Fixtures of the queue tests: an organisation on the loopback GitHub and a way to watch PRs."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowHandle

from prflow.pr_identifier import PullRequestRef
from prflow.queue.kind import pr_queue_id
from prflow.queue.state import QueueStatus
from tests.support.fake_github import FakeGitHub
from tests.support.github_org import SimulatedOrg


@pytest.fixture
def org(fake_github: FakeGitHub, prflow_home: Path, tmp_path: Path) -> SimulatedOrg:
    """An organisation of its own (PR workflow ids are global on the session's server) with
    one repository, ``shop``, and no PR yet."""
    simulated = SimulatedOrg(fake_github, tmp_path / "org", org=f"octo-{secrets.token_hex(3)}")
    simulated.add_repo("shop")
    return simulated


def queue_handle(client: Client, org: SimulatedOrg, repo: str, number: int) -> WorkflowHandle:  # type: ignore[type-arg]
    return client.get_workflow_handle(
        pr_queue_id(PullRequestRef(owner=org.org, repo=repo, number=number))
    )


async def wait_for_status(
    handle: WorkflowHandle,  # type: ignore[type-arg]
    check: Callable[[QueueStatus], bool],
    within: float = 60.0,
) -> QueueStatus:
    """Query ``status`` until ``check`` holds; fail with the last status seen."""
    deadline = time.monotonic() + within
    last: QueueStatus | None = None
    while time.monotonic() < deadline:
        try:
            last = await handle.query("status", result_type=QueueStatus)
        except Exception:
            last = None
        if last is not None and check(last):
            return last
        await asyncio.sleep(0.2)
    pytest.fail(f"the PR queue never reached the expected state; last status: {last}")
