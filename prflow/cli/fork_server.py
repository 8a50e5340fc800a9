"""The command fork server: commands start with the CLI's libraries already loaded.

A warm command spends most of its own time importing (Typer, pydantic, the
Temporal SDK: about half a second of CPU), not working. The warm worker starts
this process beside it (``python -m prflow.cli.fork_server <worker pid>``): it
imports every command's modules once, then forks one child per command the
launcher (:mod:`prflow.cli.launch`) hands it. The child takes the command's
standard streams, working directory, umask, niceness, resource limits,
environment, arguments and ``sys.path`` and runs :func:`prflow.cli.app.main`
as the command's own process would; nothing of the command runs in the server.
The server reports the child's exit code to the launcher, kills the child when
the launcher is gone (as a killed command would be), and drains: after its
worker exits, or when prflow's code changed, it takes no new command and ends
with its last child.

It stays single-threaded (it forks) and never creates a Temporal client or an
event loop: the child starts those, as a fresh process does.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import os
import resource
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import types
from typing import Any, NoReturn

from prflow.cli import fork_protocol
from prflow.code_stamp import code_stamp
from prflow.fork_switch import forks_enabled

PARENT_CHECK_SECONDS = 2.0
HEADER_SECONDS = 5.0
_PEER_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


def preload() -> None:
    """Import what any forkable command imports, then settle the heap so children share
    it (copy-on-write) and their collections skip it."""
    from prflow.cli import app

    for path in dict.fromkeys(app.COMMANDS.values()):
        command_module = path.partition(":")[0]
        if command_module != app.COMMANDS["server"].partition(":")[0]:
            importlib.import_module(command_module)
    importlib.import_module("prflow.cli.run_client")
    gc.collect()
    gc.freeze()


class ForkServer:
    """Accepts commands on the abstract socket and follows the children it forked."""

    def __init__(self, listener: socket.socket, stamp: str, parent: int) -> None:
        self.listener = listener
        self.stamp = stamp
        self.parent = parent
        self.selector = selectors.DefaultSelector()
        self.wakeup_read, self.wakeup_write = socket.socketpair()
        self.children: dict[int, socket.socket] = {}
        self.accepting = True
        # What a command must not exceed or differ from: this process's, fixed at start.
        self.environment = fork_protocol.import_time_environment(os.environ)
        self.nice = os.getpriority(os.PRIO_PROCESS, 0)
        self.limits = fork_protocol.process_limits()

    def serve(self) -> None:
        """Serve until draining and childless."""
        self.listener.setblocking(False)
        self.wakeup_read.setblocking(False)
        self.wakeup_write.setblocking(False)
        signal.set_wakeup_fd(self.wakeup_write.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
        signal.signal(signal.SIGTERM, lambda _signum, _frame: self.drain("asked to stop"))
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wakeup_read, selectors.EVENT_READ, "wakeup")
        while self.accepting or self.children:
            for key, _events in self.selector.select(PARENT_CHECK_SECONDS):
                if key.data == "accept":
                    self._accept()
                elif key.data == "wakeup":
                    with contextlib.suppress(BlockingIOError):
                        self.wakeup_read.recv(4096)
                else:
                    self._launcher_gone(key.data)
            self._reap()
            if self.accepting and os.getppid() != self.parent:
                self.drain("its warm worker exited")

    def drain(self, why: str) -> None:
        """Take no new command; end once every running one has."""
        if self.accepting:
            self.accepting = False
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(self.listener)
            self.listener.close()
            print(f"prflow fork server: {why}; draining", flush=True)

    def _accept(self) -> None:
        try:
            conn, _address = self.listener.accept()
        except (BlockingIOError, OSError):
            return
        conn.setblocking(True)
        conn.settimeout(HEADER_SECONDS)
        try:
            self._take(conn)
        except Exception as err:  # a bad request must not end the server
            print(f"prflow fork server: request dropped: {err!r}", flush=True)
            conn.close()

    def _take(self, conn: socket.socket) -> None:
        uid = _PEER_CREDENTIALS.unpack(
            conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEER_CREDENTIALS.size)
        )[1]
        if uid != os.getuid():
            conn.close()
            return
        header, fds = fork_protocol.receive_request(conn)
        try:
            conn.settimeout(None)  # blocking again: MSG_DONTWAIT peeks answer at once
            refusal = self._refusal(header)
            if refusal is not None:
                fork_protocol.send_line(conn, {"refused": refusal})
                conn.close()
                return
            if _closed_by_peer(conn):  # the launcher gave up waiting: it runs it itself
                conn.close()
                return
            pid = os.fork()
            if pid == 0:
                self._become_command(conn, header, fds)
        finally:
            for fd in fds:  # the child has its copies
                os.close(fd)
        self.children[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ, pid)
        with contextlib.suppress(OSError):
            fork_protocol.send_line(conn, {"pid": pid})

    def _refusal(self, header: dict[str, Any]) -> str | None:
        """Why this server must not run the command (None: it may)."""
        environment = header.get("env")
        if not isinstance(environment, dict):
            return "no environment"
        if fork_protocol.import_time_environment(environment) != self.environment:
            return "the interpreter's start-up variables differ from the server's"
        if header.get("path", [None])[1:] != sys.path[1:]:
            return "sys.path differs from the server's"
        if int(header.get("nice", 0)) < self.nice:
            return "the command runs at a higher priority than the server can give it"
        for name, (_soft, hard) in dict(header.get("limits", {})).items():
            own = self.limits.get(name)
            if own is None or fork_protocol.limit_above(int(hard), own[1]):
                return f"the command may use more than the server's {name}"
        if code_stamp() != self.stamp:
            self.drain("prflow's code changed")
            return "prflow's code changed since the server started"
        return None

    def _launcher_gone(self, pid: int) -> None:
        """The launcher closed its end before the command ended: it was killed, so the
        command is too, as it would have been had it run in the launcher's process."""
        conn = self.children.get(pid)
        if conn is None:
            return
        if not _closed_by_peer(conn):
            return  # stray bytes (the launcher sends none after its request): dropped
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        self.selector.unregister(conn)

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                fork_protocol.send_line(conn, {"exit": code if code >= 0 else 128 - code})
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(conn)
            conn.close()

    def _become_command(
        self, conn: socket.socket, header: dict[str, Any], fds: list[int]
    ) -> NoReturn:
        """In the child: take the launcher's process state, run the command, exit with it."""
        code = 1
        try:
            self._leave_server(conn)
            _take_process_state(header, fds)
            code = _run_command()
        except BaseException as err:  # the command's own errors are handled inside main()
            with contextlib.suppress(Exception):
                print(f"prflow: error: forked command failed to start: {err}", file=sys.stderr)
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)

    def _leave_server(self, conn: socket.socket) -> None:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        self.selector.close()
        for held in (self.listener, self.wakeup_read, self.wakeup_write, conn):
            held.close()
        for other in self.children.values():
            other.close()


def _closed_by_peer(conn: socket.socket) -> bool:
    """Whether the launcher closed its end (or died); bytes it sent are read and dropped."""
    try:
        return not conn.recv(4096, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        return True


def _take_process_state(header: dict[str, Any], fds: list[int]) -> None:
    """The launcher's streams, directory, umask, niceness, limits, environment, arguments
    and path."""
    for target, fd in enumerate(fds[: fork_protocol.STREAM_FDS]):
        os.dup2(fd, target)
    os.fchdir(fds[fork_protocol.STREAM_FDS])
    for fd in fds:
        os.close(fd)
    os.umask(int(header["umask"]))
    os.setpriority(os.PRIO_PROCESS, 0, int(header["nice"]))
    for name, (soft, hard) in header["limits"].items():
        resource.setrlimit(getattr(resource, name), (int(soft), int(hard)))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in header["env"].items()})
    sys.argv = [str(arg) for arg in header["argv"]]
    script = types.ModuleType("__main__")  # the console script's, not this server's module:
    script.__file__ = sys.argv[0]  # Click names the program after it in usage lines
    sys.modules["__main__"] = script
    sys.path[:] = [str(entry) for entry in header["path"]]
    encodings = header["streams"]
    streams = (
        ("stdin", _text_stream(0, "r", encodings[0])),
        ("stdout", _text_stream(1, "w", encodings[1])),
        ("stderr", _text_stream(2, "w", encodings[2], always_lines=True)),
    )
    for name, stream in streams:
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # what a fresh interpreter's would hold too
    from prflow.cli import timings

    timings.reset()
    timings.fact("forked", "1")


def _text_stream(
    fd: int, mode: str, encoding: list[str], *, always_lines: bool = False
) -> io.TextIOWrapper:
    """A standard stream as the launcher's interpreter set it up (its encoding and error
    handler; line-buffered on a terminal, and stderr always)."""
    name, errors = encoding
    binary = open(fd, mode + "b", closefd=False)  # noqa: SIM115 - open until the process exits
    return io.TextIOWrapper(
        binary, encoding=name, errors=errors, line_buffering=always_lines or os.isatty(fd)
    )


def _run_command() -> int:
    """Run the CLI; its exit code once every non-daemon thread ended and the exit
    handlers ran, as the interpreter's own shutdown would."""
    import atexit

    from prflow.cli.app import main

    try:
        main()
        code: int = 0
    except SystemExit as exit_:
        code = _exit_code(exit_.code)
    main_thread = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main_thread and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    return code


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    print(value, file=sys.stderr)
    return 1


BIND_SECONDS = 10.0


def _bound_listener() -> socket.socket | None:
    """The socket on this server's address, waiting for a predecessor (the fork server of a
    warm worker this one replaced) to notice it is alone and let the address go."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + BIND_SECONDS
    while True:
        try:
            listener.bind(fork_protocol.server_address())
            return listener
        except OSError as err:
            if time.monotonic() >= deadline:
                print(f"prflow fork server: not serving: {err}", flush=True)
                listener.close()
                return None
            time.sleep(0.2)


def main() -> None:
    parent = int(sys.argv[1]) if len(sys.argv) > 1 else os.getppid()
    if not forks_enabled():
        return
    stamp = code_stamp()
    preload()
    if threading.active_count() > 1:
        print("prflow fork server: a preloaded module started a thread; not serving", flush=True)
        return
    listener = _bound_listener()
    if listener is None:
        return
    listener.listen(16)
    print(f"prflow fork server {os.getpid()} serving", flush=True)
    ForkServer(listener, stamp, parent).serve()


if __name__ == "__main__":
    main()
