"""HTTP probes of a worker process: ``/healthz`` (liveness) and ``/readyz`` (readiness).

Liveness fails when a worker of this process stopped polling on its own (a
fatal error): the orchestrator should restart the process. Readiness fails
while Temporal does not answer: no traffic is lost by waiting, so the
process stays up and reports it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import timedelta

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from temporalio.client import Client
from temporalio.worker import Worker


def probe_app(client: Client, workers: Sequence[Worker]) -> Starlette:
    async def healthz(_: Request) -> PlainTextResponse:
        stopped = [w.task_queue for w in workers if not w.is_running]
        if stopped:
            return PlainTextResponse(f"not polling: {', '.join(stopped)}", status_code=503)
        return PlainTextResponse("ok")

    async def readyz(_: Request) -> PlainTextResponse:
        try:
            if await client.service_client.check_health(timeout=timedelta(seconds=2)):
                return PlainTextResponse("ready")
        except Exception:
            pass
        return PlainTextResponse("Temporal does not answer", status_code=503)

    return Starlette(routes=[Route("/healthz", healthz, methods=["GET"]), Route("/readyz", readyz)])


@contextlib.asynccontextmanager
async def serving_probes(
    client: Client, workers: Sequence[Worker], port: int, host: str = "0.0.0.0"
) -> AsyncIterator[None]:
    """Serve the probes on ``host:port`` for the duration of the block, which starts once
    they answer (an orchestrator may probe as soon as the worker says it is serving)."""
    server = uvicorn.Server(
        uvicorn.Config(probe_app(client, workers), host=host, port=port, log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # it could not bind: say why
            raise RuntimeError(f"the health probes stopped before serving on port {port}")
        await asyncio.sleep(0.02)
    try:
        yield
    finally:
        server.should_exit = True
        await task
