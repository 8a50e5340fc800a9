"""Run a long tool call on an event loop of its own, so the server keeps answering meanwhile.

A durable wait imports the workers, starts or joins a Temporal server and
builds workers: seconds of work that does not yield. On the server's loop
that would hold up every other request, ``ping`` included; in a thread with
its own loop it holds up nothing. Cancelling the call (the client gave up, or
the server is shutting down) cancels the work there and waits for its clean-up,
so the workers and any server it started are stopped before the call returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")


class _Worker:
    """The thread's loop and task, once running, so another thread can cancel the task."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.finished = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[object] | None = None

    def run(self, work: Callable[[], Awaitable[T]]) -> T:
        async def main() -> T:
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
            self.ready.set()
            return await work()

        try:
            return asyncio.run(main())
        finally:
            self.ready.set()
            self.finished.set()

    def cancel(self) -> None:
        if self._loop is None or self._task is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: the work is over anyway
            self._loop.call_soon_threadsafe(self._task.cancel)


async def on_own_loop(work: Callable[[], Awaitable[T]]) -> T:
    """``await work()`` on a fresh event loop in a worker thread; see the module doc."""
    worker = _Worker()
    try:
        return await anyio.to_thread.run_sync(worker.run, work, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(worker.ready.wait)
            worker.cancel()
            await anyio.to_thread.run_sync(worker.finished.wait)
        raise
