"""Whose dev server answers on the embedded port: its history file and process, on the server.

Two data directories (two projects, two users, a CI job beside a developer)
share one default embedded port. A server prflow starts records its history
file and pid in its namespace's data, so a command that finds a server on the
port can tell whether it is its own (same history file), another data
directory's (one line naming it and how to choose another port), or one whose
history file has gone (it answers "shard status unknown" to everything, so it
is stopped and replaced).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.namespace.v1 import UpdateNamespaceInfo
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest, UpdateNamespaceRequest
from temporalio.client import Client
from temporalio.service import RPCError

from worker.ports import port_is_free
from worker.processes import is_running

DB_KEY = "prflow-db"
DIR_KEY = "prflow-data-dir"
PID_KEY = "prflow-pid"
STOP_TIMEOUT_SECONDS = 20.0


@dataclass(frozen=True)
class Owner:
    data_dir: str
    db_path: Path
    pid: int | None


async def record(
    client: Client, namespace: str, owner_dir: str, db_file: str, pid: int | None
) -> None:
    """Write the owning data directory, the history file and the pid (absolute paths) into
    the server's namespace (a dev server allows it)."""
    data = {DIR_KEY: owner_dir, DB_KEY: db_file}
    if pid is not None:
        data[PID_KEY] = str(pid)
    with contextlib.suppress(RPCError):
        await client.workflow_service.update_namespace(
            UpdateNamespaceRequest(namespace=namespace, update_info=UpdateNamespaceInfo(data=data))
        )


async def read(client: Client, namespace: str) -> Owner | None:
    """The recorded owner, or None for a server prflow did not start (or too old to say)."""
    try:
        described = await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=namespace)
        )
    except RPCError:
        return None
    data = dict(described.namespace_info.data)
    if DB_KEY not in data or DIR_KEY not in data:
        return None
    pid = data.get(PID_KEY, "")
    return Owner(data[DIR_KEY], Path(data[DB_KEY]), int(pid) if pid.isdigit() else None)


def stop_dead(owner: Owner, port: int) -> bool:
    """Stop a server whose history file is gone; False when it is not ours to stop."""
    pid = owner.pid
    if pid is None or not is_running(pid):
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    while (is_running(pid) or not port_is_free(port)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return port_is_free(port)
