"""The ``prflow`` console script: hand the command to the fork server, else run it here.

With a warm worker up, its fork server (:mod:`prflow.cli.fork_server`) has every
command's libraries loaded; this launcher, which imports only the standard library,
sends it the command and waits for its exit code, passing on the signals the
terminal sends (Ctrl-C, a hang-up, a resize). Without one, when it refuses (other
start-up variables, another ``sys.path``, code changed since it started) or when
``PRFLOW_FORK_SERVER=0``, the command runs in this process as it always did.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time
from types import FrameType
from typing import Any

from prflow.cli import fork_protocol
from prflow.cli.argv import command_word
from prflow.fork_switch import forks_enabled
from worker.processes import is_running

FORWARDED_SIGNALS = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGWINCH,
    signal.SIGUSR1,
    signal.SIGUSR2,
)
STOPPING_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT})
"""Of those, the ones that end a command that has not started yet (not a resize)."""
CONNECT_SECONDS = 2.0
ANSWER_SECONDS = 30.0
"""A server that has not answered by then is wedged: the launcher closes the connection
(the server forks nothing for a closed one) and runs the command itself."""
EXIT_FAILED = 3
EXIT_INTERRUPTED = 130


class Forwarder:
    """Signals that arrive before the command's pid is known are passed on once it is."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.pending: list[int] = []

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        if self.pid is None:
            self.pending.append(signum)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def follow(self, pid: int) -> None:
        self.pid = pid
        for signum in self.pending:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)
        self.pending.clear()


def forkable(args: list[str]) -> bool:
    """Whether this command may run in the fork server at all."""
    return forks_enabled() and command_word(args) not in fork_protocol.UNFORKED_COMMANDS


def run_forked(args: list[str]) -> int | None:
    """The command's exit code after the fork server ran it; None when it could not."""
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    with sock:
        sock.settimeout(CONNECT_SECONDS)
        try:
            sock.connect(fork_protocol.server_address())
            directory = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        except OSError:  # no server, or a working directory that is gone
            return None
        try:
            fork_protocol.send_request(sock, _header(args), [0, 1, 2, directory])
        except OSError:  # a closed standard stream cannot be passed on: run here
            return None
        finally:
            os.close(directory)
        return _follow(sock)


def _header(args: list[str]) -> dict[str, object]:
    umask = os.umask(0)
    os.umask(umask)
    return {
        "argv": [sys.argv[0], *args],
        "env": dict(os.environ),
        "path": sys.path,
        "umask": umask,
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "limits": fork_protocol.process_limits(),
        "streams": [
            [stream.encoding, stream.errors] if stream is not None else ["utf-8", "strict"]
            for stream in (sys.stdin, sys.stdout, sys.stderr)
        ],
    }


def _follow(sock: socket.socket) -> int | None:
    """Wait for the fork server's answers; forward signals while the command runs."""
    forwarder = Forwarder()
    previous = {signum: signal.signal(signum, forwarder) for signum in FORWARDED_SIGNALS}
    sock.settimeout(ANSWER_SECONDS)
    reader = sock.makefile("rb")
    try:
        first = _answer(reader)
        sock.settimeout(None)
        if first is None or "pid" not in first:
            if STOPPING_SIGNALS & set(forwarder.pending):  # Ctrl-C (or a kill) came first
                print("prflow: interrupted", file=sys.stderr)
                return EXIT_INTERRUPTED
            if first is not None and os.environ.get("PRFLOW_DEBUG"):
                print(f"prflow: running here: {first.get('refused')}", file=sys.stderr)
            return None
        pid = int(first["pid"])
        forwarder.follow(pid)
        last = _answer(reader)
        if last is not None and "exit" in last:
            code: int = last["exit"]
            return code
        return _server_lost(pid)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _answer(reader: object) -> dict[str, Any] | None:
    try:
        line = reader.readline()  # type: ignore[attr-defined]
    except OSError:
        return None
    try:
        answer = json.loads(line) if line else None
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def _server_lost(pid: int) -> int:
    """The fork server died while the command ran: wait for the command to end, since it
    still writes to this terminal, then say its exit code is unknown."""
    while is_running(pid):
        time.sleep(0.1)
    print(
        "prflow: error: the command's fork server stopped, so its exit code is unknown; "
        "run it again (PRFLOW_FORK_SERVER=0 runs commands without the fork server)",
        file=sys.stderr,
    )
    return EXIT_FAILED


def main() -> None:
    """Entry point of the ``prflow`` script."""
    args = sys.argv[1:]
    if forkable(args):
        code = run_forked(args)
        if code is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    from prflow.cli.app import main as run_here

    run_here()
