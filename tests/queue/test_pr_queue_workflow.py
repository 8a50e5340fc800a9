"""The ``queue`` workflow on the real dev server: jobs per head, supersede, idempotency, close."""

from __future__ import annotations

import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from prflow.config import Settings
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.events import PrEvent, map_delivery
from prflow.queue.state import RunOutcome
from tests.queue.conftest import queue_handle, wait_for_status
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import Delivery, pull_request_delivery

pytestmark = pytest.mark.temporal


def event_of(delivery: Delivery) -> PrEvent:
    mapped = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(mapped, PrEvent), mapped
    return mapped


async def test_an_opened_pr_gets_one_impact_run_on_its_head(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    head = org.open_pr("shop", 1)
    async with run_worker(temporal_client, temporal_settings):
        opened = event_of(pull_request_delivery(org.fake, org.org, "shop", 1, "opened"))
        await deliver(temporal_client, opened, queue_names(temporal_settings))
        handle = queue_handle(temporal_client, org, "shop", 1)
        status = await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == head)
    assert [(r.kind, r.head_sha, r.outcome) for r in status.state.runs] == [
        ("impact", head, RunOutcome.completed)
    ]
    child = temporal_client.get_workflow_handle(status.state.runs[0].workflow_id)
    assert (await child.describe()).status == WorkflowExecutionStatus.COMPLETED
