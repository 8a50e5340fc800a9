"""Runs of the queue's three workflows under fixed ids, so the replay suite records them.

The PR workflow sees an open, a push and a close; the org gate serves it; the poll
workflow runs once without a Schedule. ``PRFLOW_RECORD_HISTORIES=1`` stores their
histories under ``tests/replay/histories/<version>/`` (see ``tests/replay``).
"""

from __future__ import annotations

import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.events import PrEvent, map_delivery
from prflow.queue.poll import PollOutcome, PollRequest
from prflow.queue.state import QueueSummary
from tests.queue.conftest import queue_handle, wait_for_status
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import pull_request_delivery

pytestmark = pytest.mark.temporal

REPLAY_QUEUE = "prflow-queue-replay"
REPLAY_ORG = "octo-replay"
QUEUE_ID = f"queue:{REPLAY_ORG}/shop#1"
GATE_ID = f"queue-gate:{REPLAY_QUEUE}:{REPLAY_ORG}"
POLL_ID = "queue-poll-replay"


def event(org: SimulatedOrg, action: str, before: str | None = None) -> PrEvent:
    delivery = pull_request_delivery(org.fake, org.org, "shop", 1, action, before=before)
    mapped = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(mapped, PrEvent)
    return mapped


async def test_queue_workflows_run_under_fixed_ids(
    temporal_client: Client,
    temporal_settings: Settings,
    fake_github: FakeGitHub,
    prflow_home: object,
    tmp_path: object,
) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    settings = temporal_settings.model_copy(deep=True)
    settings.temporal.task_queue = REPLAY_QUEUE
    settings.temporal.llm_task_queue = f"{REPLAY_QUEUE}-llm"
    settings.temporal.github_task_queue = f"{REPLAY_QUEUE}-github"
    queues = queue_names(settings)
    org = SimulatedOrg(fake_github, tmp_path / "org", org=REPLAY_ORG)
    org.add_repo("shop")
    first = org.open_pr("shop", 1)
    async with run_worker(temporal_client, settings):
        await deliver(temporal_client, event(org, "opened"), queues)
        handle = queue_handle(temporal_client, org, "shop", 1)
        await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == first)
        second = org.push("shop", 1)
        await deliver(temporal_client, event(org, "synchronize", before=first), queues)
        await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == second)
        polled = await temporal_client.execute_workflow(
            "queue_poll",
            PollRequest(org=REPLAY_ORG, queues=queues),
            id=POLL_ID,
            task_queue=REPLAY_QUEUE,
            result_type=PollOutcome,
        )
        org.close("shop", 1, merged=True)
        await deliver(temporal_client, event(org, "closed"), queues)
        summary = QueueSummary.model_validate(await handle.result())
    assert polled.delivered == 1
    assert summary.last_reviewed_sha == second
    assert handle.id == QUEUE_ID
    await temporal_client.get_workflow_handle(GATE_ID).describe()
