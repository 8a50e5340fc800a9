"""The embedded dev server: ports, Web UI, history that survives restarts."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from prflow.config import Settings, load_settings
from prflow.errors import UserError
from tests.runtime.probe_workflows import DescribeQueuesWorkflow, WaitForSignalWorkflow
from tests.support.fixtures_temporal import run_worker
from worker.client import connect
from worker.devserver import DevServer
from worker.embedded import temporal_runtime
from worker.ports import port_is_free

pytestmark = pytest.mark.temporal


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def occupied_port() -> Iterator[int]:
    """A port on which something that is not Temporal listens."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


@pytest.fixture
def local_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """No cluster configured, embedded ports free, data dir private to the test."""
    monkeypatch.delenv("TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("PRFLOW_DATA_DIR", str(tmp_path / "data"))
    settings = load_settings()
    settings.temporal.address = None
    settings.temporal.embedded_port = free_port()
    settings.temporal.embedded_ui_port = free_port()
    settings.temporal.warm_seconds = 0  # one-shot: the warm worker has tests of its own
    return settings


async def http_status(url_host: str, port: int) -> str:
    reader, writer = await asyncio.open_connection(url_host, port)
    writer.write(f"GET / HTTP/1.0\r\nHost: {url_host}\r\n\r\n".encode())
    await writer.drain()
    status_line = (await reader.readline()).decode()
    writer.close()
    await writer.wait_closed()
    return status_line


async def test_embedded_server_serves_ui_and_keeps_history_across_restarts(
    local_settings: Settings, tmp_path: Path
) -> None:
    workflow_id = f"survivor-{uuid.uuid4().hex[:8]}"
    async with temporal_runtime(local_settings, with_worker=False) as runtime:
        assert runtime.embedded
        assert runtime.ui_url == f"http://127.0.0.1:{local_settings.temporal.embedded_ui_port}"
        assert " 200 " in await http_status("127.0.0.1", local_settings.temporal.embedded_ui_port)
        handle = await runtime.client.start_workflow(
            WaitForSignalWorkflow.run, id=workflow_id, task_queue="nobody-polls-this"
        )
    assert port_is_free(local_settings.temporal.embedded_port), "server still running after exit"
    assert (tmp_path / "data" / "temporal.db").is_file()

    async with DevServer.from_settings(local_settings) as server:
        client = await connect(local_settings, server.address)
        description = await client.get_workflow_handle(workflow_id).describe()
    assert description.run_id == handle.result_run_id
    assert description.status == WorkflowExecutionStatus.RUNNING


async def test_taken_port_is_a_one_line_user_error(occupied_port: int, tmp_path: Path) -> None:
    server = DevServer(port=occupied_port, ui_port=None, db_path=tmp_path / "t.db")
    with pytest.raises(UserError) as caught:
        await server.start()
    assert str(caught.value) == (
        f"port {occupied_port} is in use: another Temporal server? "
        f"set TEMPORAL_ADDRESS=127.0.0.1:{occupied_port} to use it, "
        "or PRFLOW_TEMPORAL__EMBEDDED_PORT to pick another port"
    )
    assert server.pid is None, "no server process should have been spawned"


async def test_embedded_port_taken_by_something_else_is_a_user_error(
    local_settings: Settings, occupied_port: int
) -> None:
    local_settings.temporal.embedded_port = occupied_port
    with pytest.raises(UserError, match=f"port {occupied_port} is in use"):
        async with temporal_runtime(local_settings):
            pass


async def test_runtime_reuses_a_server_already_on_the_embedded_port(
    local_settings: Settings, temporal_client: Client, temporal_settings: Settings
) -> None:
    _host, port = temporal_client.service_client.config.target_host.rsplit(":", 1)
    local_settings.temporal.embedded_port = int(port)
    async with temporal_runtime(local_settings) as runtime:
        assert runtime.address == f"127.0.0.1:{port}"
        assert runtime.embedded
        queue = runtime.task_queue
        # A probe on another queue asks the runtime's in-process worker who it is.
        async with run_worker(
            temporal_client, temporal_settings, workflows=[DescribeQueuesWorkflow]
        ):
            answers = await temporal_client.execute_workflow(
                DescribeQueuesWorkflow.run,
                [queue, runtime.settings.temporal.llm_task_queue],
                id=f"reuse-{uuid.uuid4().hex[:8]}",
                task_queue=temporal_settings.temporal.task_queue,
            )
    # Queues private to this process: another command's worker can never take its tasks.
    assert queue.startswith(f"prflow-cli-{os.getpid()}-")
    assert [a.task_queue for a in answers] == [queue, f"{queue}-llm"]
    assert {a.pid for a in answers} == {os.getpid()}


async def test_configured_cluster_is_used_without_starting_anything(
    temporal_settings: Settings,
) -> None:
    async with temporal_runtime(temporal_settings) as runtime:
        assert not runtime.embedded
        assert runtime.ui_url is None
        assert runtime.address == temporal_settings.temporal.address
        assert await runtime.client.service_client.check_health()


async def test_unreachable_cluster_is_a_user_error(temporal_settings: Settings) -> None:
    temporal_settings.temporal.address = f"127.0.0.1:{free_port()}"
    with pytest.raises(UserError, match=r"cannot reach Temporal at 127\.0\.0\.1:"):
        async with temporal_runtime(temporal_settings):
            pass
