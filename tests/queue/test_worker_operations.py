"""Operating workers: ``--queues`` really splits queues, probes answer, metrics carry prflow's
counters next to the runtime's."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import Worker

from prflow.config import Settings
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.events import PrEvent, map_delivery
from tests.queue.conftest import queue_handle, wait_for_status
from tests.runtime.probe_workflows import DescribeQueuesWorkflow, TagRunWorkflow
from tests.support.cli_runs import free_port
from tests.support.fixtures_temporal import child_environment, prflow_script, run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import pull_request_delivery

pytestmark = pytest.mark.temporal


class WorkerSubprocess:
    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process = process
        self.log = log


@contextlib.asynccontextmanager
async def start_worker(
    settings: Settings, log: Path, *args: str
) -> AsyncIterator[WorkerSubprocess]:
    with log.open("ab") as sink:
        process = await asyncio.create_subprocess_exec(
            str(prflow_script()),
            "worker",
            "--grace-seconds",
            "2",
            *args,
            env=child_environment(settings),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=sink,
        )
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 60)
    if b"prflow worker serving" not in line:
        pytest.fail(await asyncio.to_thread(log.read_text))
    try:
        yield WorkerSubprocess(process, log)
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 30)


@pytest.fixture
async def llm_only_worker(
    temporal_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerSubprocess]:
    async with start_worker(
        temporal_settings,
        tmp_path / "llm-worker.log",
        "--queues",
        temporal_settings.temporal.llm_task_queue,
    ) as started:
        yield started


async def test_a_worker_serving_only_the_llm_queue_takes_no_main_queue_task(
    temporal_client: Client, temporal_settings: Settings, llm_only_worker: WorkerSubprocess
) -> None:
    queues = queue_names(temporal_settings)
    probe_queue = f"probe-{uuid.uuid4().hex[:8]}"
    async with Worker(temporal_client, task_queue=probe_queue, workflows=[DescribeQueuesWorkflow]):
        answers = await temporal_client.execute_workflow(
            DescribeQueuesWorkflow.run,
            [queues.llm],
            id=f"describe-{uuid.uuid4().hex[:8]}",
            task_queue=probe_queue,
        )
    assert [(a.task_queue, a.pid) for a in answers] == [(queues.llm, llm_only_worker.process.pid)]

    main_run = await temporal_client.start_workflow(
        TagRunWorkflow.run, id=f"main-{uuid.uuid4().hex[:8]}", task_queue=queues.main
    )
    await asyncio.sleep(3)
    events = [event.event_type for event in (await main_run.fetch_history()).events]
    assert len(events) == 2, "only started and scheduled: no worker took the main-queue task"
    await main_run.terminate("test over")


async def test_probes_answer_on_the_health_port(
    temporal_settings: Settings, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "worker.log"
    async with (
        start_worker(temporal_settings, log, "--health-port", str(port)),
        httpx.AsyncClient() as http,
    ):
        live = await http.get(f"http://127.0.0.1:{port}/healthz")
        ready = await http.get(f"http://127.0.0.1:{port}/readyz")
    assert (live.status_code, live.text) == (200, "ok")
    assert (ready.status_code, ready.text) == (200, "ready")


async def test_metrics_hold_the_runtime_metrics_and_prflow_counters(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    port = free_port()
    runtime = Runtime(
        telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=f"127.0.0.1:{port}"))
    )
    client = await Client.connect(
        temporal_client.service_client.config.target_host,
        namespace="default",
        data_converter=pydantic_data_converter,
        runtime=runtime,
    )
    head = org.open_pr("shop", 31)
    delivery = pull_request_delivery(org.fake, org.org, "shop", 31, "opened")
    event = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(event, PrEvent)
    async with run_worker(client, temporal_settings):
        await deliver(client, event, queue_names(temporal_settings))
        await wait_for_status(
            queue_handle(client, org, "shop", 31), lambda s: s.state.last_reviewed_sha == head
        )
        text = await scrape_until(f"http://127.0.0.1:{port}/metrics", 'kind="impact"')
    assert "temporal_workflow_completed" in text, "the runtime's own metrics share the port"
    runs = [line for line in text.splitlines() if line.startswith("prflow_workflow_runs")]
    assert any('kind="impact"' in line and 'outcome="completed"' in line for line in runs), runs
    findings = [line for line in text.splitlines() if line.startswith("prflow_findings")]
    assert any('category="test_gaps"' in line for line in findings), findings


async def scrape_until(url: str, wanted: str) -> str:
    deadline = time.monotonic() + 30
    text = ""
    async with httpx.AsyncClient() as http:
        while time.monotonic() < deadline:
            text = (await http.get(url)).text
            if wanted in text:
                return text
            await asyncio.sleep(0.5)
    return text
