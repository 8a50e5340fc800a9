"""The Temporal server SIGKILLed while a model answer is on its way: no turn is paid twice.

The worker receives the answer while the server is down, so it cannot report
the activity's completion; the worker is then SIGKILLed too, so the report is
never made. After both restart (the server on its own database file), the
turn's retry finds the answer the first attempt kept and returns it without
sending: the scripted Messages server receives each question once and the
ledger shows the retry as ``reused`` at $0.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from prflow.config import Settings, cached_settings
from prflow.impact.models import LlmStatus
from prflow.impact.run_models import ImpactResult
from prflow.store.ledger import attempts_for_workflow
from tests.hostile.checks import plain_environment
from tests.support.cli_runs import run_prflow
from tests.support.fixtures_temporal import WorkerProcessFactory, isolated_settings
from tests.support.impact_runs import agent_request, agent_script, start_impact
from tests.support.scripted_anthropic import ScriptedAnthropic
from worker.devserver import DevServer

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 180
WORKFLOW_ID = "impact-server-kill-1"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
async def own_server(tmp_path: Path) -> AsyncIterator[list[DevServer]]:
    """A dev server of this test's own (a list: the test replaces it after the kill)."""
    servers = [DevServer(port=_free_port(), ui_port=None, db_path=tmp_path / "temporal.db")]
    await servers[0].start()
    yield servers
    for server in servers:
        if server.returncode is None:
            await server.stop()


def _kill(server: DevServer) -> None:
    process = server._process  # the test crashes the server on purpose
    assert process is not None
    process.kill()
    process.wait(timeout=10)


def _wait_for_kept_answer(db_url: str, timeout: float) -> None:
    """Until the held turn's answer is in the ledger (the worker received and kept it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = attempts_for_workflow(db_url, WORKFLOW_ID)
        if sum(1 for row in rows if row.outcome == "success") >= 2:
            return
        time.sleep(0.1)
    pytest.fail("the worker never recorded the answer given while the server was down")


async def test_an_answer_received_while_the_server_is_dead_is_not_paid_for_again(
    prflow_home: Path,
    own_server: list[DevServer],
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
) -> None:
    server = own_server[0]
    settings: Settings = isolated_settings(server.address)
    db_url = cached_settings().resolved_database_url()
    gate = threading.Event()
    turns = agent_script()
    turns[1].release = gate  # answered only once the server is dead
    scripted_anthropic.script(turns)
    worker = await start_worker_process(settings)
    client = await Client.connect(server.address, data_converter=pydantic_data_converter)
    request = agent_request(settings, sample_repo)
    request.llm.heartbeat_timeout_seconds = 8
    await start_impact(client, settings, request, WORKFLOW_ID)
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, 2, 60)

    _kill(server)
    gate.set()
    await asyncio.to_thread(_wait_for_kept_answer, db_url, 30)
    worker.kill()  # the completion it could not report is gone with it
    restarted = DevServer(port=server.port, ui_port=None, db_path=server.db_path)
    own_server.append(restarted)
    await restarted.start()
    await worker.restart()
    client = await Client.connect(restarted.address, data_converter=pydantic_data_converter)
    handle = client.get_workflow_handle(WORKFLOW_ID, result_type=ImpactResult)
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.llm.status == LlmStatus.completed
    served = Counter(r.turn for r in scripted_anthropic.requests)
    assert served == {0: 1, 1: 1, 2: 1}, f"a question was sent twice: {served}"
    rows = attempts_for_workflow(db_url, WORKFLOW_ID)
    seen = [(r.workflow_id, r.activity_id, r.attempt, r.outcome) for r in rows]
    assert Counter(row.outcome for row in rows)["success"] == 3, seen
    reused = [row for row in rows if row.outcome == "reused"]
    # One retry at least; another if a retry's completion was lost too (the server restarting).
    assert reused and {(r.usd, r.input_tokens) for r in reused} == {(0.0, 0)}, seen
    assert all(r.attempt >= 2 for r in reused), seen
    held = [row for row in rows if (row.workflow_id, row.activity_id) == (
        reused[0].workflow_id, reused[0].activity_id)]  # fmt: skip
    assert held[0].outcome == "success", seen
    assert {row.outcome for row in held[1:]} == {"reused"}, seen
    costs = await run_prflow(
        "costs", "--database-url", db_url, "--workflow-id", WORKFLOW_ID,
        env=plain_environment(prflow_home / "cli"),
    )  # fmt: skip
    assert costs.code == 0, costs.describe()
    expected = f"Reused: {len(reused)} attempts were answered from an answer already received"
    assert expected in costs.stdout, costs.stdout
