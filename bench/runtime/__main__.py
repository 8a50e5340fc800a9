"""Per-call overhead of an activity on the dev server, against calling the function directly.

Run: python -m bench.runtime [--calls N]. Starts the same dev server binary the
CLI embeds, runs the real prflow workers, executes a workflow that calls the
``prflow.describe_worker`` activity N times in sequence, and compares the time
per call with calling that function in-process. The ratio is printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

from bench.runtime.overhead_workflow import ActivityOverheadWorkflow
from prflow.config import load_settings
from worker.devserver import temporal_binary
from worker.registry import describe_worker
from worker.runner import running_workers
from worker.search_attributes import ALL_KEYS


async def _measure(calls: int) -> tuple[float, float]:
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(temporal_binary()),
        search_attributes=ALL_KEYS,
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
    )
    try:
        settings = load_settings()
        settings.temporal.task_queue = f"bench-{uuid.uuid4().hex[:8]}"
        async with running_workers(
            env.client, settings, extra_workflows=[ActivityOverheadWorkflow]
        ):
            await env.client.execute_workflow(  # warm-up: worker caches, connections
                ActivityOverheadWorkflow.run,
                5,
                id=f"bench-warmup-{uuid.uuid4().hex}",
                task_queue=settings.temporal.task_queue,
            )
            started = time.perf_counter()
            await env.client.execute_workflow(
                ActivityOverheadWorkflow.run,
                calls,
                id=f"bench-overhead-{uuid.uuid4().hex}",
                task_queue=settings.temporal.task_queue,
            )
            durable = (time.perf_counter() - started) / calls
    finally:
        await env.shutdown()
    activity_env = ActivityEnvironment()
    started = time.perf_counter()
    for _ in range(calls):
        activity_env.run(describe_worker)
    direct = (time.perf_counter() - started) / calls
    return durable, direct


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200, help="activities per run")
    args = parser.parse_args()
    durable, direct = asyncio.run(_measure(args.calls))
    print(f"activities per run:            {args.calls}")
    print(f"per call as a Temporal activity: {durable * 1000:.2f} ms")
    print(f"per call in-process (anchor):    {direct * 1000:.3f} ms")
    print(f"ratio durable/in-process: {durable / direct:.0f}x")


if __name__ == "__main__":
    main()
