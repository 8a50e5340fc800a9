"""The warm worker: a dev server and workers that outlive one command on a laptop.

The first embedded run starts a detached ``python -m worker.warm`` process
that runs the Temporal dev server (unless one already listens on the embedded
port) and workers for every queue, then writes a state file. Later commands
with the same settings, secrets and code find it and only act as clients, so a
repeat run pays no server or worker start-up. It exits after
``PRFLOW_TEMPORAL__WARM_SECONDS`` without a running workflow or a client
(``prflow server stop`` stops it at once).

The environment matters: a worker acts with the API key and GitHub token it
was started with. The state file carries a fingerprint of settings, secrets
(hashed) and code; a command whose fingerprint differs never uses the warm
workers' queues (see :mod:`worker.embedded`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from prflow.code_stamp import code_stamp
from prflow.config import Settings, config_file, load_settings
from prflow.errors import UserError
from prflow.file_lock import exclusive_lock
from prflow.fork_switch import forks_enabled
from prflow.state_dirs import data_dir
from worker.processes import is_running

STATE_FILE = "warm-worker.json"
LOCK_FILE = "warm-worker.lock"
LOG_FILE = "warm-worker.log"
TOUCH_FILE = "warm-worker.touch"
START_TIMEOUT_SECONDS = 90.0
IDLE_CHECK_SECONDS = 5.0
SECRET_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "PRFLOW_GITHUB_APP_ID",
    "PRFLOW_GITHUB_APP_PRIVATE_KEY",
    "PRFLOW_GITHUB_APP_PRIVATE_KEY_PATH",
    "PRFLOW_GITHUB_APP_INSTALLATION_ID",
)


class WarmState(BaseModel):
    """What a running warm worker tells later commands about itself."""

    pid: int
    address: str
    ui_url: str | None
    fingerprint: str
    queues: dict[str, str]
    owns_server: bool
    started_at: float
    idle_exit_seconds: float


def state_path() -> Path:
    return data_dir() / STATE_FILE


def fingerprint(settings: Settings) -> str:
    """Settings, secrets (hashed) and code a warm worker must share with a command."""
    digest = hashlib.sha256(settings.model_dump_json().encode())
    for name in SECRET_VARIABLES:
        value = os.environ.get(name, "")
        digest.update(f"{name}={hashlib.sha256(value.encode()).hexdigest()};".encode())
    digest.update(code_stamp().encode())
    digest.update(str(data_dir()).encode())
    return digest.hexdigest()


def warm_queues(settings: Settings, print_: str) -> dict[str, str]:
    """Queue names private to workers of one fingerprint."""
    base = f"prflow-warm-{print_[:10]}"
    return {"main": base, "llm": f"{base}-llm", "github": f"{base}-github"}


def read_state() -> WarmState | None:
    """The warm worker's state, if one is running (stale files are removed)."""
    path = state_path()
    try:
        state = WarmState.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return None
    if not is_running(state.pid):
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return state


def touch() -> None:
    """Tell the warm worker a client just used it (resets its idle clock)."""
    with contextlib.suppress(OSError):
        (data_dir() / TOUCH_FILE).touch()


@contextlib.contextmanager
def start_lock() -> Iterator[None]:
    """Serialise starting and stopping among commands on this machine."""
    with exclusive_lock(data_dir() / LOCK_FILE):
        yield


def stop(state: WarmState, timeout: float = 30.0) -> bool:
    """SIGTERM the warm worker and wait for it to go; True if it exited."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(state.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not is_running(state.pid):
            with contextlib.suppress(OSError):
                state_path().unlink()
            return True
        time.sleep(0.1)
    return False


def spawn(settings: Settings) -> WarmState:
    """Start a detached warm worker for ``settings`` and wait until it serves."""
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    toml = config_file()
    if toml is not None:
        env["PRFLOW_CONFIG"] = str(toml.resolve())
    env["PRFLOW_DATA_DIR"] = str(directory)
    expected = fingerprint(settings)
    log = (directory / LOG_FILE).open("ab")
    with log:
        process = subprocess.Popen(
            [sys.executable, "-m", "worker.warm", expected],
            cwd=directory,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        state = read_state()
        if state is not None and state.pid == process.pid:
            return state
        if process.poll() is not None:
            raise UserError(
                f"the warm Temporal worker could not start (exit {process.returncode}); "
                f"see {directory / LOG_FILE}, or set PRFLOW_TEMPORAL__WARM_SECONDS=0"
            )
        time.sleep(0.05)
    process.terminate()
    raise UserError(
        f"the warm Temporal worker did not start within {START_TIMEOUT_SECONDS:.0f}s; "
        f"see {directory / LOG_FILE}"
    )


# ---------------------------------------------------------------------- the process


async def _serve(expected_fingerprint: str) -> None:
    from worker.client import connect, embedded_address
    from worker.devserver import DevServer
    from worker.local_server import connect_local_server
    from worker.runner import running_workers

    settings = load_settings()
    actual = fingerprint(settings)
    if actual != expected_fingerprint:
        raise SystemExit("settings changed between the command and the warm worker; not starting")
    queues = warm_queues(settings, actual)
    settings.temporal.task_queue = queues["main"]
    settings.temporal.llm_task_queue = queues["llm"]
    settings.temporal.github_task_queue = queues["github"]
    stop_requested = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop_requested.set)

    async with contextlib.AsyncExitStack() as stack:
        client = await connect_local_server(settings)
        owns_server = client is None
        server: DevServer | None = None
        if client is None:
            server = DevServer.from_settings(settings)
            await server.start()
            stack.push_async_callback(server.stop)
            client = await connect(settings, server.address)
        await stack.enter_async_context(running_workers(client, settings))
        state = WarmState(
            pid=os.getpid(),
            address=embedded_address(settings),
            ui_url=f"http://127.0.0.1:{settings.temporal.embedded_ui_port}",
            fingerprint=actual,
            queues=queues,
            owns_server=owns_server,
            started_at=time.time(),
            idle_exit_seconds=settings.temporal.warm_seconds,
        )
        _write_state(state)
        stack.callback(_remove_state, state.pid)
        print(f"prflow warm worker serving {queues['main']} on {state.address}", flush=True)
        # While the command connects, get ready for a first run: its first database use
        # migrates (Alembic), and its analysis parses in processes forked from a server.
        preload = loop.run_in_executor(None, _prepare_first_run)
        await _until_idle(client, queues["main"], settings.temporal.warm_seconds, stop_requested)
        with contextlib.suppress(Exception):
            command_forks = await preload
            if command_forks is not None:
                command_forks.terminate()  # it drains: running commands finish first


def _prepare_first_run() -> subprocess.Popen[bytes] | None:
    """Start the parse workers' fork server with the parsers loaded (in its own process),
    import Alembic (which :func:`prflow.store.database.upgrade_to_head` loads on first use),
    settle the heap (:func:`settle_heap`), then start the command fork server (next
    commands start with the CLI's libraries loaded); it is returned to be stopped.
    """
    from prflow.analysis.parse_cache import start_parse_workers

    start_parse_workers()
    import alembic.command
    import alembic.config  # noqa: F401

    settle_heap()
    return start_command_forks()


COMMAND_FORKS_MODULE = "prflow.cli.fork_server"
"""Run by module name, not imported: the worker never imports an interface."""


def start_command_forks() -> subprocess.Popen[bytes] | None:
    """The command fork server beside this worker (its log is this worker's), unless
    ``PRFLOW_FORK_SERVER=0``; it drains and exits once this process is gone."""
    if not forks_enabled():
        return None
    return subprocess.Popen(
        [sys.executable, "-m", COMMAND_FORKS_MODULE, str(os.getpid())],
        stdin=subprocess.DEVNULL,
    )


def settle_heap() -> None:
    """Collect once, then freeze what survives: the worker's start-up objects (modules, the
    SDK, pydantic schemas; 140,000 and more) live as long as the process, and the garbage
    collector's full passes would otherwise walk all of them again whenever a run allocates
    enough to trigger one, as parsing a package's files does. Frozen objects are still freed
    when their last reference goes; only cycles among them are never collected, which
    start-up objects do not form in numbers that matter.
    """
    gc.collect()
    gc.freeze()


def _write_state(state: WarmState) -> None:
    path = state_path()
    temporary = path.with_suffix(".tmp")
    temporary.write_text(state.model_dump_json())
    temporary.replace(path)


def _remove_state(pid: int) -> None:
    current = read_state()
    if current is None or current.pid == pid:
        with contextlib.suppress(OSError):
            state_path().unlink()


async def _until_idle(
    client: object, main_queue: str, idle_seconds: float, stop_requested: asyncio.Event
) -> None:
    from temporalio.client import Client

    from worker import server_users

    assert isinstance(client, Client)
    last_busy = time.monotonic()
    query = f'TaskQueue = "{main_queue}" AND ExecutionStatus = "Running"'
    while not stop_requested.is_set():
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop_requested.wait(), IDLE_CHECK_SECONDS)
        with contextlib.suppress(Exception):
            if (await client.count_workflows(query)).count > 0:
                last_busy = time.monotonic()
        with contextlib.suppress(OSError):
            touched = (data_dir() / TOUCH_FILE).stat().st_mtime
            last_busy = max(last_busy, time.monotonic() - (time.time() - touched))
        if server_users.others_using():  # a command runs its own workers on our server
            last_busy = time.monotonic()
        if time.monotonic() - last_busy > idle_seconds:
            print("prflow warm worker idle; exiting", flush=True)
            return


def main() -> None:
    expected = sys.argv[1] if len(sys.argv) > 1 else ""
    asyncio.run(_serve(expected))


if __name__ == "__main__":
    main()
