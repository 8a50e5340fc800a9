"""The webhook receiver over real HTTP: signatures, event mapping, health, a Temporal outage."""

from __future__ import annotations

import time

import httpx
import pytest
from temporalio.client import Client
from temporalio.service import RPCError

from prflow.config import Settings
from prflow.queue.delivery import queue_names
from tests.queue.conftest import queue_handle, wait_for_status
from tests.queue.receiver import SECRET, serving_receiver
from tests.support.cli_runs import free_port
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import (
    Delivery,
    comment_delivery,
    pull_request_delivery,
    schema_problems,
)

pytestmark = pytest.mark.temporal


async def post(url: str, delivery: Delivery, secret: str | None = SECRET) -> httpx.Response:
    assert schema_problems(delivery) == [], "the test must send what GitHub sends"
    async with httpx.AsyncClient() as http:
        return await http.post(
            f"{url}/webhook", content=delivery.body, headers=delivery.headers(secret)
        )


async def started(client: Client, workflow_id: str) -> bool:
    try:
        await client.get_workflow_handle(workflow_id).describe()
    except RPCError:
        return False
    return True


async def test_a_signed_pull_request_delivery_reaches_its_pr_workflow(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    head = org.open_pr("shop", 11)
    queues = queue_names(temporal_settings)

    async def connect() -> Client:
        return temporal_client

    async with (
        run_worker(temporal_client, temporal_settings),
        serving_receiver(connect, queues) as url,
    ):
        answer = await post(url, pull_request_delivery(org.fake, org.org, "shop", 11, "opened"))
        assert answer.status_code == 202, answer.text
        assert answer.json() == {"delivered": f"queue:{org.org}/shop#11", "kind": "head"}
        status = await wait_for_status(
            queue_handle(temporal_client, org, "shop", 11),
            lambda s: s.state.last_reviewed_sha == head,
        )
    assert [r.outcome.value for r in status.state.runs] == ["completed"]


@pytest.mark.parametrize(
    ("secret", "problem"),
    [
        ("not the secret", "does not match the body"),
        (None, "missing X-Hub-Signature-256"),
    ],
)
async def test_a_delivery_without_the_right_signature_is_refused_and_starts_nothing(
    temporal_client: Client,
    temporal_settings: Settings,
    org: SimulatedOrg,
    secret: str | None,
    problem: str,
) -> None:
    org.open_pr("shop", 12)

    async def connect() -> Client:
        return temporal_client

    delivery = pull_request_delivery(org.fake, org.org, "shop", 12, "opened")
    async with serving_receiver(connect, queue_names(temporal_settings)) as url:
        answer = await post(url, delivery, secret=secret)
        tampered = delivery.headers(SECRET)
        async with httpx.AsyncClient() as http:
            altered = await http.post(
                f"{url}/webhook", content=delivery.body.replace(b"12", b"13"), headers=tampered
            )
    assert answer.status_code == 401
    assert problem in answer.json()["error"]
    assert altered.status_code == 401
    assert not await started(temporal_client, f"queue:{org.org}/shop#12")


async def test_events_the_queue_does_not_act_on_are_answered_with_the_reason(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    org.open_pr("shop", 13)

    async def connect() -> Client:
        return temporal_client

    fake = org.fake
    async with serving_receiver(connect, queue_names(temporal_settings)) as url:
        labeled = await post(url, pull_request_delivery(fake, org.org, "shop", 13, "labeled"))
        chat = await post(url, comment_delivery(fake, org.org, "shop", 13, "Nice work!"))
        outsider = await post(
            url,
            comment_delivery(
                fake, org.org, "shop", 13, "/prflow impact", author="drive-by", association="NONE"
            ),
        )
        unknown = await post(url, comment_delivery(fake, org.org, "shop", 13, "/prflow deploy"))
    reasons = [r.json()["ignored"] for r in (labeled, chat, outsider, unknown)]
    assert [r.status_code for r in (labeled, chat, outsider, unknown)] == [200] * 4
    assert "does not change the code" in reasons[0]
    assert "no /prflow command" in reasons[1]
    assert "not NONE" in reasons[2]
    assert "unknown job deploy" in reasons[3]
    assert not await started(temporal_client, f"queue:{org.org}/shop#13")


async def test_a_comment_command_is_delivered_as_a_request_for_that_job(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    head = org.open_pr("shop", 14)

    async def connect() -> Client:
        return temporal_client

    async with (
        run_worker(temporal_client, temporal_settings),
        serving_receiver(connect, queue_names(temporal_settings)) as url,
    ):
        answer = await post(url, comment_delivery(org.fake, org.org, "shop", 14, "/prflow impact"))
        assert answer.status_code == 202
        assert answer.json()["kind"] == "command"
        status = await wait_for_status(
            queue_handle(temporal_client, org, "shop", 14),
            lambda s: s.state.last_reviewed_sha == head,
        )
    assert [(r.kind, r.head_sha) for r in status.state.runs] == [("impact", head)]
    assert status.state.notes == ["comment: /prflow impact: requested"]


async def test_health_answers_and_an_outage_is_a_503_within_githubs_limit(
    temporal_settings: Settings, org: SimulatedOrg
) -> None:
    from worker.client import connect as temporal_connect

    dead = temporal_settings.model_copy(deep=True)
    dead.temporal.address = f"127.0.0.1:{free_port()}"

    async def connect() -> Client:
        return await temporal_connect(dead, within_seconds=2.0)

    org.open_pr("shop", 15)
    async with serving_receiver(connect, queue_names(dead)) as url:
        async with httpx.AsyncClient() as http:
            live = await http.get(f"{url}/healthz")
            ready = await http.get(f"{url}/readyz")
        began = time.monotonic()
        answer = await post(url, pull_request_delivery(org.fake, org.org, "shop", 15, "opened"))
        took = time.monotonic() - began
    assert live.status_code == 200
    assert ready.status_code == 503
    assert answer.status_code == 503
    assert took < 10, f"GitHub gives up after 10 s; the receiver took {took:.1f}s"
