"""The real worker setup, run in-process against the session dev server."""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import timedelta

import pytest
from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from prflow.config import Settings
from prflow.search_attributes import (
    COST_USD,
    KIND,
    PHASE,
    PR,
    REPO,
    RISK_LEVEL,
    RISK_SCORE,
)
from tests.runtime.probe_workflows import DescribeQueuesWorkflow, HoldWorkflow, TagRunWorkflow
from tests.support.fixtures_temporal import run_worker
from worker.registry import queue_names
from worker.runner import build_workers, run_workers

pytestmark = pytest.mark.temporal


async def eventually_listed(client: Client, query: str, attempts: int = 150) -> list[str]:
    """Workflow ids matching ``query``; visibility is eventually consistent, so retry a while."""
    for _ in range(attempts):
        found = [execution.id async for execution in client.list_workflows(query)]
        if found:
            return found
        await asyncio.sleep(0.2)
    return []


def _workflow_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def test_each_task_queue_is_served_by_this_process(
    temporal_client: Client, temporal_settings: Settings
) -> None:
    queues = list(queue_names(temporal_settings).values())
    async with run_worker(temporal_client, temporal_settings, workflows=[DescribeQueuesWorkflow]):
        answers = await temporal_client.execute_workflow(
            DescribeQueuesWorkflow.run,
            queues,
            id=_workflow_id("describe"),
            task_queue=temporal_settings.temporal.task_queue,
        )
    assert [answer.task_queue for answer in answers] == queues
    assert {answer.pid for answer in answers} == {os.getpid()}


async def test_search_attributes_are_upserted_and_queryable(
    temporal_client: Client, temporal_settings: Settings
) -> None:
    workflow_id = _workflow_id("tagged")
    async with run_worker(temporal_client, temporal_settings, workflows=[TagRunWorkflow]):
        handle = await temporal_client.start_workflow(
            TagRunWorkflow.run, id=workflow_id, task_queue=temporal_settings.temporal.task_queue
        )
        await handle.result()
    attributes = (await handle.describe()).typed_search_attributes
    assert attributes.get(REPO) == "acme/api"
    assert attributes.get(PR) == 42
    assert attributes.get(KIND) == "impact"
    assert attributes.get(PHASE) == "done"
    assert attributes.get(RISK_SCORE) == 81
    assert attributes.get(RISK_LEVEL) == "critical"
    assert attributes.get(COST_USD) == pytest.approx(0.37)

    # What an operator types into the Web UI finds the run.
    query = f'WorkflowId = "{workflow_id}" AND Repo = "acme/api" AND RiskScore >= 75'
    assert await eventually_listed(temporal_client, query) == [workflow_id]


async def test_shutdown_lets_a_running_activity_finish(
    temporal_client: Client, temporal_settings: Settings
) -> None:
    started = asyncio.Event()

    @activity.defn(name="test.hold")
    async def hold() -> str:
        started.set()
        await activity.wait_for_worker_shutdown()
        return "finished during shutdown"

    handle = await temporal_client.start_workflow(
        HoldWorkflow.run, id=_workflow_id("hold"), task_queue=temporal_settings.temporal.task_queue
    )
    async with run_worker(
        temporal_client,
        temporal_settings,
        workflows=[HoldWorkflow],
        activities=[hold],
        graceful_shutdown=timedelta(seconds=30),
    ):
        await started.wait()
    # The activity completed (not cancelled) while its worker stopped; a new worker
    # only has to finish the workflow with the recorded result.
    async with run_worker(temporal_client, temporal_settings, workflows=[HoldWorkflow]):
        assert await handle.result() == "finished during shutdown"


async def test_run_workers_serves_every_queue_until_stopped(
    temporal_client: Client, temporal_settings: Settings
) -> None:
    stop = asyncio.Event()
    served: list[str] = []

    def on_started(workers: list[Worker]) -> None:
        served.extend(worker.task_queue for worker in workers)
        stop.set()

    await asyncio.wait_for(
        run_workers(temporal_client, temporal_settings, stop, on_started=on_started), 60
    )
    assert served == list(queue_names(temporal_settings).values())


async def test_llm_queue_rate_limit_applies_to_the_llm_queue_only(
    temporal_client: Client, temporal_settings: Settings
) -> None:
    temporal_settings.temporal.llm_max_activities_per_second = 2.5
    workers = build_workers(temporal_client, temporal_settings)
    limits = {
        worker.task_queue: worker.config().get("max_task_queue_activities_per_second")
        for worker in workers
    }
    assert limits == {
        temporal_settings.temporal.task_queue: None,
        temporal_settings.temporal.llm_task_queue: 2.5,
        temporal_settings.temporal.github_task_queue: None,
    }
