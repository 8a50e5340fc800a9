"""Fairness and limits on the dev server: the org cap, turns between repositories, fairness keys."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.events import PrEvent, map_delivery
from prflow.queue.gate import GateState, gate_workflow_id
from tests.queue.conftest import queue_handle, wait_for_status
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import pull_request_delivery

pytestmark = pytest.mark.temporal


def opened(org: SimulatedOrg, repo: str, number: int) -> PrEvent:
    delivery = pull_request_delivery(org.fake, org.org, repo, number, "opened")
    event = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(event, PrEvent)
    return event


async def gate_state(client: Client, org: SimulatedOrg, settings: Settings) -> GateState:
    handle = client.get_workflow_handle(gate_workflow_id(org.org, settings.temporal.task_queue))
    found: GateState = await handle.query("gate", result_type=GateState)
    return found


async def test_a_busy_repository_takes_turns_with_a_quiet_one_under_the_org_cap(
    temporal_client: Client,
    temporal_settings: Settings,
    org: SimulatedOrg,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PRFLOW_QUEUE__ORG_MAX_RUNNING", "1")
    cached_settings.cache_clear()
    org.add_repo("tools")
    for number in (1, 2, 3, 4):
        org.open_pr("shop", number)
    org.open_pr("tools", 1)
    queues = queue_names(temporal_settings)
    first_job = org.fake.hold("GET", r"/shop/issues/1/comments$")
    async with run_worker(temporal_client, temporal_settings):
        await deliver(temporal_client, opened(org, "shop", 1), queues)
        await wait_for_status(
            queue_handle(temporal_client, org, "shop", 1), lambda s: s.running is not None
        )
        for number in (2, 3, 4):
            await deliver(temporal_client, opened(org, "shop", number), queues)
        await deliver(temporal_client, opened(org, "tools", 1), queues)
        for repo, number in (("shop", 2), ("shop", 3), ("shop", 4), ("tools", 1)):
            await wait_for_status(
                queue_handle(temporal_client, org, repo, number), lambda s: s.waiting_for_slot
            )
        gate = await gate_state(temporal_client, org, temporal_settings)
        assert list(gate.holders) == [f"queue:{org.org}/shop#1"], "the cap is one running PR"
        assert len(gate.waiting) == 4
        first_job.set()
        finished: list[str] = []
        for repo, number in (("shop", 2), ("shop", 3), ("shop", 4), ("tools", 1)):
            status = await wait_for_status(
                queue_handle(temporal_client, org, repo, number),
                lambda s: bool(s.state.runs),
                within=120,
            )
            finished.append(status.state.runs[0].workflow_id)
    starts = {}
    for workflow_id in finished:
        starts[workflow_id] = (
            await temporal_client.get_workflow_handle(workflow_id).describe()
        ).start_time
    order = [workflow_id.split("@")[0] for workflow_id in sorted(starts, key=lambda w: starts[w])]
    assert order[0] == f"impact:{org.org}/tools#1", (
        f"the quiet repository waited behind the busy one: {order}"
    )


async def test_jobs_carry_their_repository_as_the_task_queue_fairness_key(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    head = org.open_pr("shop", 9)
    async with run_worker(temporal_client, temporal_settings):
        await deliver(temporal_client, opened(org, "shop", 9), queue_names(temporal_settings))
        handle = queue_handle(temporal_client, org, "shop", 9)
        status = await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == head)
    child = temporal_client.get_workflow_handle(status.state.runs[0].workflow_id)
    for described in (await handle.describe(), await child.describe()):
        priority = described.raw_description.workflow_execution_info.priority
        assert priority.fairness_key == f"{org.org}/shop"
