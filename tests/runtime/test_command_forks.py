"""The command fork server: a command forked from it behaves as the command run alone.

Each test starts a real fork server (``python -m prflow.cli.fork_server``) for a
private data directory and runs the installed ``prflow`` console script against it,
as a user's shell would. A command that must keep running aims at a Temporal
address that accepts connections and never answers (the client waits about 15 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from prflow.cli import fork_protocol
from prflow.cli.fork_server import ForkServer
from tests.support.cli_runs import CliRun, embedded_environment, free_port, run_prflow
from tests.support.fixtures_git import GitRepoBuilder
from tests.support.fixtures_temporal import prflow_script
from worker.processes import is_running

SERVER_READY_SECONDS = 60.0


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(part) for part in text.split()]


def _cwd(pid: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None


def _status(pid: int) -> str:
    """For an assertion message: what the process is doing."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()[:600]
        return status + "wchan: " + Path(f"/proc/{pid}/wchan").read_text()
    except OSError as err:
        return str(err)


def _wait_for(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


class ForkServerProcess:
    """A fork server subprocess for ``env``'s data directory, its parent the test process
    (or ``parent`` when given: a server whose parent is not it drains at once)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> int:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "prflow.cli.fork_server", str(os.getpid())],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        ready = _wait_for(lambda: "serving" in self.log.read_text(), SERVER_READY_SECONDS)
        assert ready, self.log.read_text()
        return self.process.pid

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    builder = GitRepoBuilder(tmp_path / "repo")
    builder.write("m.py", "def f(a):\n    return a\n")
    builder.commit("base")
    builder.write("m.py", "def f(a, b):\n    return a\n")
    builder.commit("head")
    return builder.path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    env = embedded_environment(tmp_path / "home", free_port(), free_port())
    env["PRFLOW_CLI_TIMES"] = str(tmp_path / "times.jsonl")
    return env


@pytest.fixture
def fork_server(env: dict[str, str], tmp_path: Path) -> Iterator[ForkServerProcess]:
    server = ForkServerProcess(env, tmp_path / "fork-server.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def blackhole() -> AsyncIterator[str]:
    """A Temporal address that accepts connections and never answers."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"127.0.0.1:{port}"
    server.close()
    for writer in held:
        writer.close()


def _forked(env: dict[str, str]) -> bool:
    """Whether the last command that wrote its marks ran forked from the server."""
    lines = Path(env["PRFLOW_CLI_TIMES"]).read_text().splitlines()
    return bool(json.loads(lines[-1])["facts"].get("forked") == "1")


async def test_a_forked_command_answers_as_the_command_run_alone(
    fork_server: ForkServerProcess, env: dict[str, str], repo: Path
) -> None:
    args = ("impact", "--repo", ".", "--base", "no-such-ref", "--no-llm", "-q")
    forked = await run_prflow(*args, env=env, cwd=repo)
    assert _forked(env), forked.describe()
    alone = await run_prflow(*args, env={**env, "PRFLOW_FORK_SERVER": "0"}, cwd=repo)
    assert not _forked(env), alone.describe()

    # Its arguments, working directory (--repo .) and environment were the launcher's.
    assert forked.code == alone.code == 2, forked.describe()
    assert forked.stderr == alone.stderr, (forked.describe(), alone.describe())
    assert len(forked.stderr_lines) == 1 and "no-such-ref" in forked.stderr
    assert str(repo) in forked.stderr, forked.describe()

    usage = await run_prflow("impact", "--no-such-option", env=env, cwd=repo)
    assert usage.code == 2 and "see 'prflow impact --help'" in usage.stderr, usage.describe()
    version = await run_prflow("--version", env=env)
    assert version.code == 0 and version.stdout.startswith("prflow "), version.describe()


async def test_a_command_with_other_start_up_variables_runs_alone(
    fork_server: ForkServerProcess, env: dict[str, str], repo: Path
) -> None:
    other = {**env, "PYTHONWARNINGS": "ignore"}
    run = await run_prflow("impact", "--repo", ".", "--base", "nope", "-q", env=other, cwd=repo)
    assert run.code == 2 and "nope" in run.stderr, run.describe()
    assert not _forked(env), "the server's interpreter started with other variables"


LAUNCHER_NICENESS = 7
LAUNCHER_OPEN_FILES = 512


def _as_a_limited_shell_would() -> None:
    """``nice -n 7`` and ``ulimit -n 512`` before the command, as a user's shell may."""
    os.nice(LAUNCHER_NICENESS)
    resource.setrlimit(resource.RLIMIT_NOFILE, (LAUNCHER_OPEN_FILES, LAUNCHER_OPEN_FILES))


async def _launch(env: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        str(prflow_script()),
        *("impact", "--repo", ".", "--base", "HEAD~1", "--no-llm", "-q"),
        env=env,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=_as_a_limited_shell_would,
    )


def _forked_child(server: ForkServerProcess) -> int:
    assert server.process is not None
    pid = server.process.pid
    assert _wait_for(lambda: bool(_children(pid)), 30), "no command was forked"
    [child] = _children(pid)
    return child


async def test_ctrl_c_on_the_launcher_interrupts_the_forked_command(
    fork_server: ForkServerProcess, env: dict[str, str], repo: Path, blackhole: str
) -> None:
    launcher = await _launch({**env, "TEMPORAL_ADDRESS": blackhole}, repo)
    child = _forked_child(fork_server)
    await asyncio.sleep(0.5)  # the command is waiting for Temporal now
    launcher.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(launcher.communicate(), 30)
    run = CliRun(launcher.returncode or 0, out.decode(), err.decode())

    assert run.code == 130, run.describe()
    assert run.stderr_lines == ["prflow: interrupted"], run.describe()
    assert _wait_for(lambda: not is_running(child), 10), "the forked command outlived Ctrl-C"


async def test_a_killed_launcher_takes_its_forked_command_with_it(
    fork_server: ForkServerProcess, env: dict[str, str], repo: Path, blackhole: str
) -> None:
    launcher = await _launch({**env, "TEMPORAL_ADDRESS": blackhole}, repo)
    child = _forked_child(fork_server)
    # The command runs as the launcher would have: its priority and limits, not the server's.
    # The test's own niceness, then nice -n 7 (the kernel stops at 19: the suite may run there).
    niceness = min(os.getpriority(os.PRIO_PROCESS, 0) + LAUNCHER_NICENESS, 19)
    limit = (LAUNCHER_OPEN_FILES, LAUNCHER_OPEN_FILES)
    assert _wait_for(lambda: _cwd(child) == repo.resolve(), 30), _status(child)
    assert _wait_for(lambda: os.getpriority(os.PRIO_PROCESS, child) == niceness, 10), (
        os.getpriority(os.PRIO_PROCESS, child),
        niceness,
        _status(child),
    )
    assert _wait_for(lambda: resource.prlimit(child, resource.RLIMIT_NOFILE) == limit, 10)
    launcher.kill()
    await launcher.wait()

    assert _wait_for(lambda: not is_running(child), 10), "the forked command outlived its launcher"
    assert fork_server.process is not None and fork_server.process.poll() is None


def test_a_fork_server_whose_worker_exited_ends(env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "orphan.log"
    # A stand-in worker starts the server and exits: the server must not stay behind.
    starter = (
        "import os, subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-m', 'prflow.cli.fork_server', str(os.getpid())],"
        f" stdout=open({str(log)!r}, 'ab'), stderr=subprocess.STDOUT)\n"
        "print(p.pid, flush=True)\n"
        "import time\n"
        f"while 'serving' not in open({str(log)!r}).read(): time.sleep(0.05)\n"
    )
    started = subprocess.run(
        [sys.executable, "-c", starter],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    server = int(started.stdout.split()[0])
    assert _wait_for(lambda: not is_running(server), 15), log.read_text()
    assert "draining" in log.read_text()


def test_a_server_older_than_the_code_refuses_and_drains() -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        server = ForkServer(listener, stamp="the code as it was", parent=os.getppid())
        header = {
            "env": dict(os.environ),
            "path": sys.path,
            "nice": os.getpriority(os.PRIO_PROCESS, 0),
            "limits": fork_protocol.process_limits(),
        }
        refusal = server._refusal(header)
        assert refusal is not None and "code changed" in refusal
        assert not server.accepting
        with contextlib.suppress(OSError):
            server.selector.close()
