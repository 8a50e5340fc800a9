"""Run a command from a repository in the sandbox, with its limits, and bounded output.

One entry point, :func:`run_sandboxed`, for every piece of repository code the
worker runs (test runs, environment installs, any later command a kind runs).
It builds the command line with :mod:`prflow.sandbox.layout`, hands writable
binds to the unprivileged host uid when the worker is root, starts the process
in its own process group, drains its output on a thread into a
:class:`~prflow.sandbox.output.BoundedOutput` (past ``max_output_mb`` it stops
reading and ends the run), heartbeats, and kills the whole group at the time
cap. :func:`sandbox_tools` says which sandboxes work here: each is tried once
per process, because an installed bwrap may still be denied its namespaces.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from temporalio import activity

from prflow.config import SandboxSettings, cached_settings
from prflow.sandbox.choice import SandboxChoice, Tools
from prflow.sandbox.environment import sandbox_env
from prflow.sandbox.layout import (
    ETC_FILES,
    ETC_NETWORK_FILES,
    SANDBOX_HOME,
    SANDBOX_TMP,
    SYSTEM_DIRS,
    Bind,
    Host,
    bwrap_argv,
    etc_contents,
    network_only_argv,
    prlimit_argv,
    unshare_argv,
)
from prflow.sandbox.models import MIB, SandboxKind, SandboxReport
from prflow.sandbox.output import BoundedOutput

POLL_SECONDS = 0.25
CHUNK = 1 << 16
DRAIN_AFTER_EXIT_SECONDS = 2.0


@dataclass(frozen=True)
class SandboxCommand:
    """A command to run in the sandbox.

    ``cwd`` and every path in ``argv`` and ``env`` are as the command sees them:
    in the full sandbox a bind puts each host path at its ``dest``; the weaker
    modes run on the host, where the caller passes host paths.
    """

    argv: Sequence[str]
    cwd: str
    choice: SandboxChoice
    timeout_seconds: float
    binds: Sequence[Bind] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """The runner's own variables (``VIRTUAL_ENV``, ``PYTEST_ADDOPTS``, ...)."""
    path_prefix: Sequence[str] = ()
    network: bool = False
    """True only for installers: the one step that fetches packages."""
    what: str = "the tests"
    settings: SandboxSettings | None = None


@dataclass(frozen=True)
class SandboxRun:
    exit_code: int | None
    """None when the run was stopped (time cap or output bound)."""
    timed_out: bool
    limit_hit: str | None
    output: str
    output_bytes: int
    seconds: float
    report: SandboxReport


def _settings(command: SandboxCommand) -> SandboxSettings:
    return command.settings or cached_settings().sandbox


# --------------------------------------------------------------------------- what works here


def host_facts(bwrap: str, settings: SandboxSettings) -> Host:
    """The machine's layout and tools, as :mod:`prflow.sandbox.layout` needs them."""
    system: dict[str, str | None] = {}
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            system[name] = os.readlink(path)
        elif path.is_dir():
            system[name] = None
    etc = tuple(n for n in (*ETC_FILES, *ETC_NETWORK_FILES) if Path("/etc", n).exists())
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return Host(
        bwrap=bwrap,
        prlimit=shutil.which("prlimit"),
        setpriv=shutil.which("setpriv"),
        root=os.geteuid() == 0,
        host_uid=settings.host_uid if os.geteuid() == 0 else None,
        system=system,
        etc=etc,
        open_files_hard=None if hard == resource.RLIM_INFINITY else hard,
    )


def _failure(argv: Sequence[str]) -> str | None:
    """None when ``argv`` exits 0, else the last line it wrote (why it failed)."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, timeout=30, check=False, env={"PATH": "/usr/bin"}
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"


def _runs(argv: Sequence[str]) -> bool:
    return _failure(argv) is None


def _full_failure(host: Host, settings: SandboxSettings) -> str | None:
    with tempfile.TemporaryDirectory(prefix="prflow-probe-") as scratch:
        etc = _write_etc(Path(scratch))
        argv = bwrap_argv(
            host,
            ["true"],
            cwd="/",
            binds=(),
            etc_dir=str(etc),
            limits=settings.limits,
            network=False,
        )
        return _failure(argv)


@functools.cache
def sandbox_tools() -> Tools:
    """The sandboxes that actually work on this worker (each tried once per process)."""
    settings = cached_settings().sandbox
    root = os.geteuid() == 0
    bwrap = shutil.which("bwrap")
    host = host_facts(bwrap, settings) if bwrap else None
    problem = "" if bwrap else "bwrap is not installed"
    if host is not None and host.root and not host.layered:
        host, problem = None, "setpriv (util-linux) is missing to drop root"
    if host is not None:
        failure = _full_failure(host, settings)
        if failure is not None:
            host, problem = None, failure
    net_bwrap = bwrap if bwrap and _runs(network_only_argv(bwrap, ["true"], [])) else None
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    works = unshare is not None and _runs(unshare_argv(unshare, ip, root, ["true"], []))
    return Tools(
        host=host,
        bwrap=net_bwrap,
        unshare=unshare if works else None,
        ip=ip,
        root=root,
        prlimit=shutil.which("prlimit"),
        problem=problem,
    )


@functools.cache
def node_options() -> dict[str, str]:
    """``NODE_OPTIONS`` that let node run under the address-space limit: V8 reserves ~10 GB
    of address space per WebAssembly memory for its bounds-check trap handler, which
    ``RLIMIT_AS`` refuses; node >= 20.15 can check bounds inline instead."""
    node = shutil.which("node")
    flag = "--disable-wasm-trap-handler"
    if node and _runs([node, flag, "-e", "0"]):
        return {"NODE_OPTIONS": flag}
    return {}


# --------------------------------------------------------------------------- running


def _write_etc(scratch: Path) -> Path:
    etc = scratch / "etc"
    etc.mkdir()
    for name, text in etc_contents().items():
        (etc / name).write_text(text)
    return etc


def give_to(path: Path, uid: int) -> None:
    """``chown -R uid:uid path`` (symlinks themselves, never their targets)."""
    os.lchown(path, uid, uid)
    for directory, dirs, names in os.walk(path):
        for name in (*dirs, *names):
            os.lchown(os.path.join(directory, name), uid, uid)


def _host_path(path: str, binds: Sequence[Bind]) -> str:
    for bind in binds:
        if path == bind.dest or path.startswith(bind.dest.rstrip("/") + "/"):
            return bind.source + path[len(bind.dest.rstrip("/")) :]
    return path


def _argv(
    command: SandboxCommand, tools: Tools, settings: SandboxSettings, scratch: Path
) -> tuple[list[str], str, dict[str, str]]:
    """Command line, host cwd of the process, and its environment."""
    choice, limits = command.choice, settings.limits
    if choice.full and tools.host is not None:
        argv = bwrap_argv(
            tools.host,
            command.argv,
            cwd=command.cwd,
            binds=command.binds,
            etc_dir=str(_write_etc(scratch)),
            limits=limits,
            network=command.network,
        )
        env = sandbox_env(
            worker=os.environ,
            runner=command.env,
            path_prefix=command.path_prefix,
            home=SANDBOX_HOME,
            tmp=SANDBOX_TMP,
            pass_env=settings.pass_env,
            installing=command.network,
        )
        return argv, "/", env
    home = scratch / "home"
    home.mkdir()
    env = sandbox_env(
        worker=os.environ,
        runner=command.env,
        path_prefix=command.path_prefix,
        home=str(home),
        tmp=str(scratch),
        pass_env=settings.pass_env,
        installing=command.network,
        host_path=True,
    )
    limiter = prlimit_argv(tools.prlimit, limits, None) if tools.prlimit else []
    cwd = _host_path(command.cwd, command.binds)
    if choice.kind == SandboxKind.bwrap and tools.bwrap and not command.network:
        return network_only_argv(tools.bwrap, command.argv, limiter), cwd, env
    if choice.kind == SandboxKind.unshare and tools.unshare and not command.network:
        return unshare_argv(tools.unshare, tools.ip, tools.root, command.argv, limiter), cwd, env
    return [*limiter, *command.argv], cwd, env


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


class _Drain(threading.Thread):
    """Reads the command's output into a bounded buffer until EOF, the cap, or ``stop``."""

    def __init__(self, fd: int, keep: int, cap: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.cap = fd, cap
        self.sink = BoundedOutput(keep)
        self.over = threading.Event()
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], POLL_SECONDS)
            if not ready:
                continue
            chunk = os.read(self.fd, CHUNK)
            if not chunk:
                return
            self.sink.write(chunk)
            if self.sink.total > self.cap:
                self.over.set()
                return


def run_sandboxed(command: SandboxCommand, tools: Tools | None = None) -> SandboxRun:
    """Run ``command`` in its sandbox until it exits, hits the time cap or the output bound."""
    tools = tools or sandbox_tools()
    settings = _settings(command)
    limits = settings.limits
    report = command.choice.report(tools, limits, network=command.network)
    if command.choice.full and tools.host is not None and tools.host.layered:
        assert tools.host.host_uid is not None
        for bind in command.binds:
            if bind.writable:
                give_to(Path(bind.source), tools.host.host_uid)
    with tempfile.TemporaryDirectory(prefix="prflow-sandbox-") as scratch:
        argv, cwd, env = _argv(command, tools, settings, Path(scratch))
        read_end, write_end = os.pipe()
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=write_end,
                stderr=write_end,
                start_new_session=True,
            )
        finally:
            os.close(write_end)
        drain = _Drain(read_end, int(limits.output_mb * MIB), limits.max_output_mb * MIB)
        drain.start()
        timed_out, limit_hit = False, None
        try:
            while True:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=POLL_SECONDS)
                    break
                if drain.over.is_set():
                    limit_hit = "output"
                    break
                if time.monotonic() - started > command.timeout_seconds:
                    timed_out = True
                    break
                if activity.in_activity():
                    activity.heartbeat()
        finally:
            if process.poll() is None or timed_out or limit_hit:
                _kill(process)
            drain.join(DRAIN_AFTER_EXIT_SECONDS)
            drain.stop.set()
            drain.join()
            os.close(read_end)
        seconds = time.monotonic() - started
    text = drain.sink.text()
    if timed_out:
        text += (
            f"\n[prflow: {command.what} ran past the {command.timeout_seconds:.0f}s cap "
            "and were killed]\n"
        )
    if limit_hit:
        text += (
            f"\n[prflow: {command.what} wrote more than {limits.max_output_mb} MiB of output "
            "and were stopped]\n"
        )
    stopped = timed_out or limit_hit is not None
    return SandboxRun(
        exit_code=None if stopped else process.returncode,
        timed_out=timed_out,
        limit_hit=limit_hit,
        output=text,
        output_bytes=drain.sink.total,
        seconds=round(seconds, 3),
        report=report,
    )


def read_written(path: Path, limit: int = 256 * MIB) -> bytes | None:
    """A file the sandboxed code wrote (its report), or None: never through a symlink it
    planted (that would read the worker's files), never a device or FIFO, at most ``limit``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return handle.read(limit)
