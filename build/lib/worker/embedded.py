"""The Temporal a CLI command runs against, with zero setup by default.

Resolution order: a configured cluster (``TEMPORAL_ADDRESS``) is used as is
and is expected to have its own ``prflow worker`` fleet; otherwise a dev
server already listening on the embedded port (``prflow server`` in another
terminal) is reused; otherwise a dev server is started for the duration of the
command. In the local cases the command also runs the workers in-process, so
one ``prflow impact ...`` works end to end on a laptop.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from temporalio.client import Client
from temporalio.runtime import Runtime as TemporalCoreRuntime

from prflow.config import Settings
from prflow.errors import UserError
from worker.client import connect, embedded_address
from worker.devserver import DevServer, frontend_port_in_use_error, port_is_free
from worker.runner import running_workers
from worker.search_attributes import ensure_registered


@dataclass(frozen=True)
class Runtime:
    """A connected client plus where it points; ``ui_url`` is None for external clusters."""

    client: Client
    address: str
    ui_url: str | None
    embedded: bool


def embedded_ui_url(settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.temporal.embedded_ui_port}"


async def connect_local_server(
    settings: Settings, *, runtime: TemporalCoreRuntime | None = None
) -> Client | None:
    """Client for a dev server already on the embedded port; None when the port is free.

    A port that is taken by something that is not Temporal is a user error:
    we must not start a second server on it, and cannot use it either.
    """
    if port_is_free(settings.temporal.embedded_port):
        return None
    try:
        client = await connect(
            settings, embedded_address(settings), runtime=runtime, within_seconds=5.0
        )
    except UserError as err:
        raise frontend_port_in_use_error(settings.temporal.embedded_port) from err
    await ensure_registered(client, settings.temporal.namespace)
    return client


@contextlib.asynccontextmanager
async def temporal_runtime(
    settings: Settings,
    *,
    with_worker: bool = True,
    worker_on_cluster: bool = False,
) -> AsyncIterator[Runtime]:
    """Connect (starting a dev server if needed) and run workers for the block.

    ``with_worker`` runs in-process workers on a local server; against a
    configured cluster they run only when ``worker_on_cluster`` is also set.
    On exit the workers stop first, then any server this call started.
    """
    async with contextlib.AsyncExitStack() as stack:
        if settings.temporal.address:
            client = await connect(settings)
            runtime = Runtime(client, settings.temporal.address, ui_url=None, embedded=False)
            run_worker = with_worker and worker_on_cluster
        else:
            existing = await connect_local_server(settings)
            if existing is None:
                server = DevServer.from_settings(settings)
                await server.start()
                stack.push_async_callback(server.stop)
                client = await connect(settings, server.address)
            else:
                client = existing
            runtime = Runtime(
                client, embedded_address(settings), embedded_ui_url(settings), embedded=True
            )
            run_worker = with_worker
        if run_worker:
            await stack.enter_async_context(running_workers(client, settings))
        yield runtime
