"""The real webhook app on uvicorn, in this process, on a free loopback port."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import uvicorn
from temporalio.client import Client

from prflow.queue.state import QueueNames
from prflow.webhook.app import Receiver, create_app
from tests.support.cli_runs import free_port

SECRET = "It's a Secret to Everybody"


@contextlib.asynccontextmanager
async def serving_receiver(
    connect: Callable[[], Awaitable[Client]],
    queues: QueueNames,
    *,
    secret: str = SECRET,
    jobs: Sequence[str] = ("impact",),
) -> AsyncIterator[str]:
    """Serve the receiver for the block; yields its base URL."""
    receiver = Receiver(secret=secret, queues=queues, jobs=jobs, connect=connect)
    async with serving_app(receiver) as url:
        yield url


@contextlib.asynccontextmanager
async def serving_app(receiver: Receiver) -> AsyncIterator[str]:
    """Serve the webhook app for ``receiver`` for the block; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(receiver), host="127.0.0.1", port=port, log_level="error")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
