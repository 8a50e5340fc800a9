"""Workers for prflow's task queues, and running them until told to stop.

One :class:`~temporalio.worker.Worker` per queue, because the queues are split
by the resource their activities use: the main queue (workflows, git, analysis,
tests), the LLM queue (rate-limited for the whole fleet) and the GitHub-write
queue. Sync activities share one process-wide thread pool sized for the sum of
the per-queue concurrency limits, so no activity waits for a thread while its
timeout runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from functools import lru_cache
from typing import Any

from pydantic import ValidationError
from temporalio.client import Client
from temporalio.worker import Worker

from prflow import __version__
from prflow.config import Settings
from prflow.errors import UserError
from prflow.kinds import QueueRole
from worker.metrics import PrflowMetrics
from worker.registry import activities_for, queue_names, workflows

GRACEFUL_SHUTDOWN = timedelta(seconds=30)
"""How long running activities get to finish after a stop request before cancellation."""

MAX_CONCURRENT_ACTIVITIES: dict[QueueRole, int] = {
    QueueRole.MAIN: 16,
    QueueRole.LLM: 16,
    QueueRole.GITHUB: 8,
}

ActivitiesByRole = Mapping[QueueRole, Sequence[Callable[..., Any]]]


@lru_cache(maxsize=1)
def activity_thread_pool() -> ThreadPoolExecutor:
    """Threads for sync activities, shared by every worker in this process."""
    return ThreadPoolExecutor(
        max_workers=sum(MAX_CONCURRENT_ACTIVITIES.values()),
        thread_name_prefix="prflow-activity",
    )


def build_workers(
    client: Client,
    settings: Settings,
    *,
    extra_workflows: Sequence[type] = (),
    extra_activities: ActivitiesByRole | None = None,
    graceful_shutdown: timedelta = GRACEFUL_SHUTDOWN,
    roles: Collection[QueueRole] | None = None,
) -> list[Worker]:
    """One worker per configured task queue (or per queue of ``roles``), serving the registry
    plus any extras.

    The extras let tests run their own workflows on the real worker setup. Workflows
    run on the main queue only, so a process serving just the LLM queue runs model calls
    and nothing else.
    """
    extras = extra_activities or {}
    built: list[Worker] = []
    for role, queue in queue_names(settings).items():
        if roles is not None and role not in roles:
            continue
        rate_limit = settings.temporal.llm_max_activities_per_second
        built.append(
            Worker(
                client,
                task_queue=queue,
                workflows=[*workflows(), *extra_workflows] if role is QueueRole.MAIN else [],
                activities=[*activities_for(queue, settings), *extras.get(role, ())],
                activity_executor=activity_thread_pool(),
                max_concurrent_activities=MAX_CONCURRENT_ACTIVITIES[role],
                # Enforced by the server for the queue as a whole, across all workers.
                max_task_queue_activities_per_second=rate_limit if role is QueueRole.LLM else None,
                graceful_shutdown_timeout=graceful_shutdown,
                # Named, not hashed from every loaded module (which costs ~0.4 s per start).
                build_id=f"prflow-{__version__}",
                interceptors=[PrflowMetrics()],
                # A run whose input (or an activity's answer) cannot be decoded fails at
                # once: retrying the workflow task would fail the same way forever.
                workflow_failure_exception_types=[ValidationError],
            )
        )
    return built


def roles_for(names: str, settings: Settings) -> list[QueueRole]:
    """The roles of the comma-separated task queue names given to ``prflow worker --queues``."""
    by_name = {queue: role for role, queue in queue_names(settings).items()}
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in by_name]
    if unknown or not wanted:
        raise UserError(
            f"--queues {names!r} names no configured task queue"
            + (f" ({', '.join(unknown)})" if unknown else "")
            + f"; choose from: {', '.join(by_name)}"
        )
    return [by_name[name] for name in dict.fromkeys(wanted)]


async def _shutdown_all(workers: Sequence[Worker]) -> None:
    """Stop polling on every queue at once, then wait for in-flight tasks."""
    await asyncio.gather(*(worker.shutdown() for worker in workers))


@contextlib.asynccontextmanager
async def running_workers(
    client: Client,
    settings: Settings,
    *,
    extra_workflows: Sequence[type] = (),
    extra_activities: ActivitiesByRole | None = None,
    graceful_shutdown: timedelta = GRACEFUL_SHUTDOWN,
    roles: Collection[QueueRole] | None = None,
) -> AsyncIterator[list[Worker]]:
    """Run the workers for the duration of the block; a fatal worker error cancels the block."""
    workers = build_workers(
        client,
        settings,
        extra_workflows=extra_workflows,
        extra_activities=extra_activities,
        graceful_shutdown=graceful_shutdown,
        roles=roles,
    )
    async with contextlib.AsyncExitStack() as stack:
        for worker in workers:
            await stack.enter_async_context(worker)
        stack.push_async_callback(_shutdown_all, workers)
        yield workers


async def run_workers(
    client: Client,
    settings: Settings,
    stop: asyncio.Event,
    *,
    graceful_shutdown: timedelta = GRACEFUL_SHUTDOWN,
    on_started: Callable[[list[Worker]], None] | None = None,
    roles: Collection[QueueRole] | None = None,
) -> None:
    """Serve every queue (or those of ``roles``) until ``stop`` is set, then shut down."""
    async with running_workers(
        client, settings, graceful_shutdown=graceful_shutdown, roles=roles
    ) as workers:
        if on_started is not None:
            on_started(workers)
        await stop.wait()
