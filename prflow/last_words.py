"""Quick clean-ups a process runs when it is forced to exit before its own clean-up could.

The CLI's Ctrl-C handling ends the process with ``os._exit`` after a short grace
period; whoever started something that must not be orphaned by that (the worker
runtime hands its dev server over to the next command) registers a callback
here. It lives outside both so that the worker runtime never imports the CLI.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

_callbacks: list[Callable[[], None]] = []


def at_forced_exit(callback: Callable[[], None]) -> Callable[[], None]:
    """Run ``callback`` (quick, synchronous) if the process is forced to exit before its
    clean-up could; returns a function that withdraws it once the clean-up is done."""
    _callbacks.append(callback)
    return lambda: _callbacks.remove(callback) if callback in _callbacks else None


def run_last_words() -> None:
    """Run every registered callback once, ignoring their failures: the process is ending."""
    for callback in list(_callbacks):
        with contextlib.suppress(Exception):
            callback()
