"""Who uses the embedded dev server, so no command stops it under another command's run.

Every command that uses the dev server on the embedded port (one it started,
a warm worker's, a ``prflow server``) holds a shared lock on one file in the
data directory for as long as it does. Stopping or replacing a server needs
that lock exclusively, so it happens only when no other command holds it.
A command that started a server and finishes while others still use it hands
the server over: its pid is noted here, and the last command to leave stops
it. Locks die with their process, so a crashed command never keeps a server
up. Decisions to start, join, stop or replace are made under
:func:`worker.warm.start_lock`, so none of them races another command's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING

from pydantic import BaseModel

from prflow.state_dirs import data_dir
from worker.ports import port_is_free
from worker.processes import is_running

if TYPE_CHECKING:
    from worker.devserver import DevServer

USERS_FILE = "embedded-server.users"
HANDED_OVER_FILE = "embedded-server.json"
STOP_TIMEOUT_SECONDS = 20.0


class HandedOver(BaseModel):
    """A server whose starting command has finished: the last user stops it."""

    pid: int
    port: int


class ServerUse:
    """This command's shared hold on the server; :meth:`leave` when done with it."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle: IO[str] | None = handle

    def leave(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the file releases the lock
            self._handle = None


def _users_path() -> Path:
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return directory / USERS_FILE


def join() -> ServerUse:
    """Declare that this command uses the server until :meth:`ServerUse.leave`."""
    handle = _users_path().open("a")
    fcntl.flock(handle, fcntl.LOCK_SH)
    return ServerUse(handle)


def others_using() -> bool:
    """Whether any other command holds the server (call after leaving, never while holding)."""
    with _users_path().open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def hand_over(server: DevServer) -> None:
    """Leave ``server`` running for the commands still using it; the last one stops it."""
    pid = server.hand_over()
    if pid is None:
        return
    note = HandedOver(pid=pid, port=server.port)
    (data_dir() / HANDED_OVER_FILE).write_text(note.model_dump_json())


def stop_handed_over_if_unused() -> None:
    """Stop a handed-over server once no command uses it any more."""
    path = data_dir() / HANDED_OVER_FILE
    try:
        note = HandedOver.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return
    if others_using():
        return
    if _is_that_server(note):
        with contextlib.suppress(ProcessLookupError):
            os.kill(note.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
        # The port closes before the server lets go of its database file: wait for the
        # process itself, or the next command's server finds the database locked.
        while is_running(note.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
    with contextlib.suppress(OSError):
        path.unlink()


def _is_that_server(note: HandedOver) -> bool:
    """The noted pid still runs a dev server on the noted port (not a reused pid)."""
    if port_is_free(note.port):
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return is_running(note.pid)
    try:
        command = (proc / str(note.pid) / "cmdline").read_bytes()
    except OSError:
        return False
    return b"start-dev" in command
