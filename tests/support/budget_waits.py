"""Waiting, in a test, for a run's agent to stop at its cap and wait for a raise."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import WorkflowHandle

from prflow.run_progress import RunProgress


async def until_waiting_for_a_raise(
    handle: WorkflowHandle[Any, Any], within: float = 30.0
) -> RunProgress:
    """The run's progress once one of its agents waits for a budget raise."""
    async with asyncio.timeout(within):
        while True:
            progress: RunProgress = await handle.query("progress", result_type=RunProgress)
            if progress.waiting_for_budget:
                return progress
            await asyncio.sleep(0.1)
