"""Hostile or malformed webhook deliveries are refused at the door, never with a 5xx, and
start nothing; GitHub's form-encoded content type is accepted like JSON."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.queue.delivery import queue_names
from prflow.queue.signature import SIGNATURE_HEADER, sign
from tests.queue.conftest import queue_handle, wait_for_status
from tests.queue.receiver import SECRET, serving_receiver
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import pull_request_delivery

pytestmark = pytest.mark.temporal


def _set(payload: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(payload)
    *parents, last = path.split(".")
    target = changed
    for part in parents:
        target = target[part]
    target[last] = value
    return changed


HOSTILE = {
    "owner 5000 chars": ("repository.owner.login", "a" * 5000),
    "owner with newline": ("repository.owner.login", "octo\nevil"),
    "repo ../../etc": ("repository.name", "../../etc"),
    "repo ..": ("repository.name", ".."),
    "PR number -1": ("pull_request.number", -1),
    "PR number 2^63": ("pull_request.number", 2**63),
    "PR number 0": ("pull_request.number", 0),
    "head sha shell": ("pull_request.head.sha", "HEAD; rm -rf /"),
    "head sha short": ("pull_request.head.sha", "abc123"),
}


async def _post(url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(f"{url}/webhook", content=body, headers=headers)


def _headers(body: bytes, content_type: str = "application/json", **extra: str) -> dict[str, str]:
    return {
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        "Content-Type": content_type,
        SIGNATURE_HEADER: sign(SECRET, body),
        **extra,
    }


async def test_hostile_deliveries_are_400_and_start_nothing(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    org.open_pr("shop", 21)
    good = pull_request_delivery(org.fake, org.org, "shop", 21, "opened").payload

    async def connect() -> Client:
        return temporal_client

    answers: dict[str, int] = {}
    async with serving_receiver(connect, queue_names(temporal_settings)) as url:
        for name, (path, value) in HOSTILE.items():
            body = json.dumps(_set(good, path, value)).encode()
            answers[name] = (await _post(url, body, _headers(body))).status_code
        deep = b"[" * 100_000 + b"]" * 100_000
        answers["100k-deep JSON"] = (await _post(url, deep, _headers(deep))).status_code
        body = json.dumps(good).encode()
        bad_id = _headers(body) | {"X-GitHub-Delivery": "id; rm -rf /"}
        answers["delivery id with a shell line"] = (await _post(url, body, bad_id)).status_code
    assert answers == dict.fromkeys(answers, 400)
    running = [
        w.id
        async for w in temporal_client.list_workflows(f'WorkflowId STARTS_WITH "queue:{org.org}"')
    ]
    assert running == []


async def test_a_form_encoded_delivery_is_accepted_and_another_type_is_415(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    head = org.open_pr("shop", 22)
    delivery = pull_request_delivery(org.fake, org.org, "shop", 22, "opened")
    form = urlencode({"payload": json.dumps(delivery.payload)}).encode()

    async def connect() -> Client:
        return temporal_client

    async with (
        run_worker(temporal_client, temporal_settings),
        serving_receiver(connect, queue_names(temporal_settings)) as url,
    ):
        xml = await _post(url, b"<x/>", _headers(b"<x/>", "application/xml"))
        answer = await _post(url, form, _headers(form, "application/x-www-form-urlencoded"))
        assert answer.status_code == 202, answer.text
        await wait_for_status(
            queue_handle(temporal_client, org, "shop", 22),
            lambda s: s.state.last_reviewed_sha == head,
        )
    assert xml.status_code == 415
    assert "application/json" in xml.json()["error"]


async def test_a_client_that_disconnects_mid_body_is_one_log_line(
    temporal_client: Client,
    temporal_settings: Settings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    import asyncio

    async def connect() -> Client:
        return temporal_client

    caplog.set_level(logging.INFO)
    async with serving_receiver(connect, queue_names(temporal_settings)) as url:
        port = int(url.rsplit(":", 1)[1])
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 1000\r\n\r\n{"partial": '
        )
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.close()
        await asyncio.sleep(0.5)
    disconnects = [r for r in caplog.records if "disconnected" in r.getMessage()]
    assert len(disconnects) == 1
    assert not [r for r in caplog.records if r.exc_info]
