"""The Temporal a management command talks to: the configured cluster or a local `prflow server`.

Unlike a run (which may embed its own dev server), commands that manage
long-lived things (budgets of running workflows, poll schedules, PR queues)
must reach the server those things live on, or say in one line how to start it.
"""

from __future__ import annotations

from temporalio.client import Client

from prflow.config import Settings
from prflow.errors import UserError


async def cluster_client(settings: Settings) -> Client:
    from worker.client import connect
    from worker.local_server import connect_local_server

    if settings.temporal.address:
        return await connect(settings)
    client = await connect_local_server(settings)
    if client is None:
        raise UserError(
            "no Temporal server is running here; set TEMPORAL_ADDRESS or start `prflow server`"
        )
    return client
