"""``prflow server`` and ``prflow worker`` as a user runs them: subprocesses and signals."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings
from tests.runtime.probe_workflows import DescribeQueuesWorkflow
from tests.support.fixtures_temporal import (
    WorkerProcess,
    WorkerProcessFactory,
    child_environment,
    isolated_settings,
    prflow_script,
    run_worker,
    settings_env,
)
from worker.client import connect

pytestmark = pytest.mark.temporal


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def local_env(tmp_path: Path, embedded_port: int) -> dict[str, str]:
    """A user's shell with no cluster configured and a private data directory."""
    env = {k: v for k, v in os.environ.items() if k != "TEMPORAL_ADDRESS"}
    env["PRFLOW_DATA_DIR"] = str(tmp_path / "data")
    env["PRFLOW_TEMPORAL__EMBEDDED_PORT"] = str(embedded_port)
    return env


async def run_cli(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        str(prflow_script()),
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def ask_worker(client: Client, settings: Settings, queue: str) -> int:
    """Pid of whichever process serves ``queue``, via an in-process probe workflow."""
    async with run_worker(client, settings, workflows=[DescribeQueuesWorkflow]):
        answers = await client.execute_workflow(
            DescribeQueuesWorkflow.run,
            [queue],
            id=f"ask-{uuid.uuid4().hex[:8]}",
            task_queue=settings.temporal.task_queue,
        )
    return answers[0].pid


async def test_server_command_serves_until_ctrl_c(tmp_path: Path) -> None:
    port, ui_port = free_port(), free_port()
    process = await asyncio.create_subprocess_exec(
        str(prflow_script()),
        "server",
        "--port",
        str(port),
        "--ui-port",
        str(ui_port),
        env=local_env(tmp_path, port),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    banner: list[str] = []
    async with asyncio.timeout(60):
        while not banner or "Ctrl-C" not in banner[-1]:
            line = (await process.stdout.readline()).decode()
            assert line, f"prflow server exited early: {banner}"
            banner.append(line)
    text = "".join(banner)
    assert f"127.0.0.1:{port}" in text
    assert f"http://127.0.0.1:{ui_port}" in text

    settings = Settings()
    client = await connect(settings, f"127.0.0.1:{port}")
    assert await client.service_client.check_health()

    process.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert "Stopped." in out.decode()
    assert "Traceback" not in err.decode()
    assert (tmp_path / "data" / "temporal.db").is_file()


async def test_server_command_on_a_taken_port_exits_2_with_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        code, _, err = await run_cli("server", "--port", str(port), env=local_env(tmp_path, port))
    assert code == 2
    assert err.strip().splitlines() == [
        f"prflow: error: port {port} is in use: another Temporal server? "
        f"set TEMPORAL_ADDRESS=127.0.0.1:{port} to use it, "
        "or PRFLOW_TEMPORAL__EMBEDDED_PORT to pick another port"
    ]


async def test_worker_command_without_a_server_exits_2_with_one_line(tmp_path: Path) -> None:
    port = free_port()
    code, _, err = await run_cli("worker", env=local_env(tmp_path, port))
    assert code == 2
    assert err.strip().splitlines() == [
        f"prflow: error: no Temporal server at 127.0.0.1:{port}: run `prflow server` in "
        "another terminal, or set TEMPORAL_ADDRESS to your cluster"
    ]


async def test_worker_command_serves_tasks_and_stops_cleanly_on_sigterm(
    temporal_client: Client, temporal_settings: Settings, worker_process: WorkerProcess
) -> None:
    probe_settings = isolated_settings(temporal_settings.temporal.address or "")
    queue = temporal_settings.temporal.llm_task_queue
    assert await ask_worker(temporal_client, probe_settings, queue) == worker_process.pid

    assert await worker_process.stop() == 0
    assert any("prflow worker stopped." in line for line in worker_process.output)
    assert "Traceback" not in worker_process.stderr()


async def test_killed_worker_process_restarts_and_serves_again(
    temporal_client: Client,
    temporal_settings: Settings,
    start_worker_process: WorkerProcessFactory,
) -> None:
    worker = await start_worker_process(temporal_settings)
    first_pid = worker.pid
    worker.kill()
    await worker.restart()
    assert worker.pid != first_pid
    probe_settings = isolated_settings(temporal_settings.temporal.address or "")
    queue = temporal_settings.temporal.task_queue
    assert await ask_worker(temporal_client, probe_settings, queue) == worker.pid


def test_child_environment_reproduces_the_settings(
    temporal_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporal_settings.database_url = "postgresql://postgres@127.0.0.1:5432/prflow_x"
    temporal_settings.budget.usd = 0.75
    temporal_settings.temporal.llm_max_activities_per_second = 3.0
    env = child_environment(temporal_settings)
    assert set(settings_env(temporal_settings)) <= set(env)
    for key in list(os.environ):
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    from prflow.config import load_settings

    assert load_settings() == temporal_settings
