"""The ``queue`` workflow on the real dev server: jobs per head, supersede, idempotency, close."""

from __future__ import annotations

import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from prflow.config import Settings
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.events import PrEvent, map_delivery
from prflow.queue.kind import pr_queue_id
from prflow.queue.state import QueueNames, QueueState, QueueSummary, RunOutcome
from tests.queue.conftest import queue_handle, wait_for_status
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import Delivery, comment_delivery, pull_request_delivery

pytestmark = pytest.mark.temporal


def event_of(delivery: Delivery) -> PrEvent:
    mapped = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(mapped, PrEvent), mapped
    return mapped


async def send(
    client: Client,
    queues: QueueNames,
    org: SimulatedOrg,
    number: int,
    action: str,
    before: str | None = None,
) -> None:
    """Deliver a ``pull_request`` event for ``shop#number`` as the receiver would."""
    delivery = pull_request_delivery(org.fake, org.org, "shop", number, action, before=before)
    await deliver(client, event_of(delivery), queues)


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


async def test_a_push_supersedes_the_running_job_and_the_next_run_starts_from_the_last_head(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    queues = queue_names(temporal_settings)
    first = org.open_pr("shop", 2)
    handle = queue_handle(temporal_client, org, "shop", 2)
    async with run_worker(temporal_client, temporal_settings):
        await send(temporal_client, queues, org, 2, "opened")
        await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == first)

        # GitHub turns slow at the comment step: the run on the second head stays in flight.
        slow = org.fake.hold("GET", r"/issues/2/comments$")
        second = org.push("shop", 2)
        await send(temporal_client, queues, org, 2, "synchronize", before=first)
        running = await wait_for_status(
            handle, lambda s: s.running is not None and s.running.head_sha == second
        )
        assert running.state.last_reviewed_sha == first

        third = org.push("shop", 2)
        await send(temporal_client, queues, org, 2, "synchronize", before=second)
        # The cancelled run is replaced while GitHub still holds its request.
        replanned = await wait_for_status(
            handle, lambda s: s.running is not None and s.running.head_sha == third
        )
        assert replanned.state.last_reviewed_sha == first, (
            "the next run starts from the last reviewed head"
        )
        slow.set()
        done = await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == third)

    outcomes = [(r.head_sha, r.outcome) for r in done.state.runs]
    assert outcomes == [
        (first, RunOutcome.completed),
        (second, RunOutcome.superseded),
        (third, RunOutcome.completed),
    ]
    cancelled = temporal_client.get_workflow_handle(done.state.runs[1].workflow_id)
    assert (await cancelled.describe()).status == WorkflowExecutionStatus.CANCELED


async def test_redelivered_and_repeated_events_start_nothing_new(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    queues = queue_names(temporal_settings)
    head = org.open_pr("shop", 3)
    handle = queue_handle(temporal_client, org, "shop", 3)
    opened = pull_request_delivery(org.fake, org.org, "shop", 3, "opened")
    async with run_worker(temporal_client, temporal_settings):
        for _ in range(3):  # GitHub's redelivery keeps the delivery id
            await deliver(temporal_client, event_of(opened), queues)
        await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == head)
        # A different delivery reporting the same head (a poll, a reopened hook) is no new work.
        await send(temporal_client, queues, org, 3, "ready_for_review")
        await deliver(temporal_client, event_of(opened), queues)
        status = await wait_for_status(handle, lambda s: len(s.state.deliveries) == 2)
    assert [(r.head_sha, r.outcome) for r in status.state.runs] == [(head, RunOutcome.completed)]
    assert status.state.notes[-1].endswith("same_head")


async def test_closing_the_pr_cancels_its_job_and_ends_the_workflow(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    queues = queue_names(temporal_settings)
    head = org.open_pr("shop", 4)
    handle = queue_handle(temporal_client, org, "shop", 4)
    slow = org.fake.hold("GET", r"/issues/4/comments$")
    async with run_worker(temporal_client, temporal_settings):
        await send(temporal_client, queues, org, 4, "opened")
        await wait_for_status(handle, lambda s: s.running is not None)
        org.close("shop", 4, merged=True)
        await send(temporal_client, queues, org, 4, "closed")
        summary = QueueSummary.model_validate(await handle.result())
        slow.set()
    assert summary.runs[-1].head_sha == head
    assert summary.runs[-1].outcome == RunOutcome.cancelled
    assert summary.last_reviewed_sha is None
    assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED


async def test_a_comment_command_reruns_a_job_on_the_reviewed_head(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    queues = queue_names(temporal_settings)
    head = org.open_pr("shop", 6)
    handle = queue_handle(temporal_client, org, "shop", 6)
    async with run_worker(temporal_client, temporal_settings):
        opened = pull_request_delivery(org.fake, org.org, "shop", 6, "opened")
        await deliver(temporal_client, event_of(opened), queues)
        await wait_for_status(handle, lambda s: len(s.state.runs) == 1)
        command = comment_delivery(org.fake, org.org, "shop", 6, "Looks odd.\n/prflow impact\n")
        await deliver(temporal_client, event_of(command), queues)
        status = await wait_for_status(handle, lambda s: len(s.state.runs) == 2)
    assert [(r.kind, r.head_sha, r.outcome) for r in status.state.runs] == [
        ("impact", head, RunOutcome.completed),
        ("impact", head, RunOutcome.completed),
    ]
    assert status.state.requested == []


async def test_a_long_lived_pr_continues_as_new_and_keeps_its_state(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    queues = queue_names(temporal_settings)
    head = org.open_pr("shop", 7)
    opened = event_of(pull_request_delivery(org.fake, org.org, "shop", 7, "opened"))
    handle = await temporal_client.start_workflow(
        "queue",
        QueueState(pr=opened.pr, queues=queues, history_limit=60),
        id=pr_queue_id(opened.pr),
        task_queue=queues.main,
        start_signal="event",
        start_signal_args=[opened],
    )
    async with run_worker(temporal_client, temporal_settings):
        await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == head)
        for n in range(40):  # deliveries that bring nothing new still grow the history
            same = opened.model_copy(update={"delivery_id": f"poll-{n}", "source": "poll"})
            await temporal_client.get_workflow_handle(handle.id).signal("event", same)
        status = await wait_for_status(handle, lambda s: s.state.continued >= 1)
        described = await temporal_client.get_workflow_handle(handle.id).describe()
    assert status.state.last_reviewed_sha == head
    assert [r.outcome for r in status.state.runs] == [RunOutcome.completed]
    assert described.run_id != handle.result_run_id, "a new run carries the PR on"
    assert opened.delivery_id in status.state.deliveries


async def test_a_review_command_runs_the_review_kind_on_the_head(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    """The queue is data-driven by kind: `/prflow review` starts a review child like impact."""
    queues = queue_names(temporal_settings)
    head = org.open_pr("shop", 8)
    handle = queue_handle(temporal_client, org, "shop", 8)
    async with run_worker(temporal_client, temporal_settings):
        opened = pull_request_delivery(org.fake, org.org, "shop", 8, "opened")
        await deliver(temporal_client, event_of(opened), queues)
        await wait_for_status(handle, lambda s: len(s.state.runs) == 1)
        command = comment_delivery(org.fake, org.org, "shop", 8, "/prflow review\n")
        await deliver(temporal_client, event_of(command), queues)
        status = await wait_for_status(handle, lambda s: len(s.state.runs) == 2, within=120)
    review = status.state.runs[1]
    assert (review.kind, review.head_sha, review.outcome) == ("review", head, RunOutcome.completed)
    child = temporal_client.get_workflow_handle(review.workflow_id)
    assert (await child.describe()).status == WorkflowExecutionStatus.COMPLETED
