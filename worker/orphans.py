"""Runs stranded on the private task queue of a CLI that is gone.

A command with no warm worker serves its run itself, on task queues named
after its process (``prflow-cli-<pid>-…``, see :func:`worker.embedded.private_queues`).
When that process dies (SIGKILL, a closed laptop lid, an interrupt that could
not finish), no other worker will ever poll those queues: the run would stay
RUNNING forever and every rerun of the same command would attach to it and
hang. Such a run is terminated (cancelling needs a worker to run the
cancellation, and there is none), so the rerun starts it over.
"""

from __future__ import annotations

import contextlib
import re

from temporalio.client import Client
from temporalio.service import RPCError

from worker.processes import is_running

PRIVATE_QUEUE = re.compile(r"^prflow-cli-(\d+)-[0-9a-f]+")
SWEEP_LIMIT = 200


def owner_pid(task_queue: str) -> int | None:
    """The pid of the CLI that owns ``task_queue``, or None for a shared queue."""
    match = PRIVATE_QUEUE.match(task_queue)
    return int(match[1]) if match else None


def owner_gone(task_queue: str) -> bool:
    """Whether ``task_queue`` belongs to a CLI process that no longer runs on this host."""
    pid = owner_pid(task_queue)
    return pid is not None and not is_running(pid)


async def terminate_orphan(client: Client, workflow_id: str, task_queue: str) -> None:
    pid = owner_pid(task_queue)
    with contextlib.suppress(RPCError):  # it ended meanwhile
        await client.get_workflow_handle(workflow_id).terminate(
            reason=f"its prflow command (pid {pid}) is gone and nothing else serves its queue"
        )


async def sweep_orphans(client: Client) -> list[str]:
    """Terminate every running workflow whose CLI owner is gone; their ids.

    Cheap on an embedded server (one visibility query); never fails a command.
    """
    swept: list[str] = []
    try:
        async for execution in client.list_workflows(
            'ExecutionStatus = "Running"', limit=SWEEP_LIMIT
        ):
            if execution.task_queue and owner_gone(execution.task_queue):
                await terminate_orphan(client, execution.id, execution.task_queue)
                swept.append(execution.id)
    except RPCError:
        return swept
    return swept
