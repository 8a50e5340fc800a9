"""Heartbeats for activities that can run longer than a few seconds.

Every such activity is scheduled with a heartbeat timeout, so a worker that
dies mid-activity costs the run that timeout (seconds), not the activity's
whole start-to-close limit. The work itself rarely has natural points to
report from (a griffe load, a git fetch), so a side thread beats on a fixed
period for as long as the call runs.
Async activities that wait on blocking code beat from the event loop instead
(:func:`in_thread_heartbeating`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from temporalio import activity

HEARTBEAT_EVERY_SECONDS = 5.0

_P = ParamSpec("_P")
_R = TypeVar("_R")


def heartbeating(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Wrap a sync activity so it heartbeats every few seconds while it runs."""

    @functools.wraps(function)
    def beating(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not activity.in_activity():
            return function(*args, **kwargs)
        # The activity's context lives in this thread's context variables; the
        # beating thread runs a copy of them so activity.heartbeat() finds it.
        context = contextvars.copy_context()
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(HEARTBEAT_EVERY_SECONDS):
                try:
                    context.run(activity.heartbeat)
                except TimeoutError:
                    # The worker's event loop took too long to take this beat (a loaded
                    # machine): skip it. A beater that died here would let the heartbeat
                    # timeout expire on an activity that is still working.
                    continue

        beater = threading.Thread(target=beat, name="prflow-heartbeat", daemon=True)
        beater.start()
        try:
            return function(*args, **kwargs)
        finally:
            stop.set()
            beater.join()

    return beating


async def in_thread_heartbeating(func: Callable[[], _R], every_seconds: float = 2.0) -> _R:
    """Run blocking code (PyGithub, say) in a thread from an async activity, heartbeating
    while it waits, so the event loop stays free and a killed worker costs the heartbeat
    timeout, not the whole start-to-close timeout."""
    task = asyncio.ensure_future(asyncio.to_thread(func))
    while True:
        done, _ = await asyncio.wait({task}, timeout=every_seconds)
        if done:
            return task.result()
        if activity.in_activity():
            activity.heartbeat()
