"""Ctrl-C: one line saying what became of the run, exit 130 at once; a second Ctrl-C exits now.

Python's default turns SIGINT into KeyboardInterrupt, which the CLI framework
and asyncio then handle their own ways (an empty line and exit 130, or a
cleanup that waits for workers to drain). Here the first SIGINT prints the
line, lets cleanup run for at most :data:`GRACE_SECONDS` (a run on this
command's own queues is stopped, since nothing else could serve it), then
exits; a second one exits immediately.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from dataclasses import dataclass
from types import FrameType

from prflow.last_words import run_last_words

EXIT_INTERRUPTED = 130
GRACE_SECONDS = 2.0


class Interrupted(BaseException):
    """Raised in the main thread by the first Ctrl-C; the line is printed already."""


@dataclass(frozen=True)
class RunNote:
    workflow_id: str
    own_queues: bool  # served by this command's own workers: it stops with the command


@dataclass
class _State:
    run: RunNote | None = None
    count: int = 0


_state = _State()


def note_run(workflow_id: str, *, own_queues: bool) -> None:
    """Remember the run this command follows, for the interrupt line."""
    _state.run = RunNote(workflow_id, own_queues)


def interrupt_line() -> str:
    run = _state.run
    if run is None:
        return "prflow: interrupted"
    if run.own_queues:
        return (
            f"prflow: interrupted; run {run.workflow_id} is stopped with this command (it ran "
            "on this command's own workers): run the same command again to start it over"
        )
    return (
        f"prflow: interrupted; run {run.workflow_id} keeps running on the server: run the "
        f"same command again to attach to it, or `prflow cancel {run.workflow_id}` to stop it"
    )


def _exit_now() -> None:
    run_last_words()
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _state.count += 1
    if _state.count > 1:
        _exit_now()
    print(interrupt_line(), file=sys.stderr, flush=True)
    timer = threading.Timer(GRACE_SECONDS, _exit_now)
    timer.daemon = True
    timer.start()
    raise Interrupted


def install() -> None:
    """Take over SIGINT in the main thread (asyncio then leaves it alone)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)
