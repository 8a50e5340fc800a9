"""What a dead worker or a bad option costs in money: every paid request is on the books.

- A model turn in flight when the worker is SIGKILLed is answered (and billed)
  by the API, but its worker never records the answer. The ledger row written
  before the request left stays ``sent``, and ``prflow costs`` reports it as
  unknown at its worst-case price, during the outage and after the run
  finished on a new worker.
- Output paths and options are checked before anything starts: with a worker
  holding a working key on duty, a mistake costs one line, exit 2 and not a
  single model request.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.impact.models import LlmStatus
from prflow.store.ledger import attempts_for_workflow
from tests.hostile.checks import one_line_error, plain_environment
from tests.support.cli_runs import client_environment, run_prflow
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.impact_runs import agent_request, agent_script, start_impact
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 120
WORKFLOW_ID = "spend-kill-1"


async def costs_of(db_url: str, workflow_id: str, home: Path) -> dict[str, Any]:
    """``prflow costs --json`` for one workflow, as a user would ask for it."""
    run = await run_prflow(
        "costs", "--database-url", db_url, "--workflow-id", workflow_id, "--json",
        env=plain_environment(home),
    )  # fmt: skip
    assert run.code == 0, run.describe()
    totals: dict[str, Any] = json.loads(run.stdout)["totals"]
    return totals


async def test_a_turn_in_flight_at_the_kill_stays_on_the_books_as_unknown(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
) -> None:
    db_url = cached_settings().resolved_database_url()
    gate = threading.Event()
    turns = agent_script()
    turns[1].release = gate  # answered only once its worker is dead
    scripted_anthropic.script(turns)
    worker = await start_worker_process(temporal_settings)
    request = agent_request(temporal_settings, sample_repo)
    request.llm.heartbeat_timeout_seconds = 8
    handle = await start_impact(temporal_client, temporal_settings, request, WORKFLOW_ID)
    await asyncio.to_thread(scripted_anthropic.wait_for_requests, 2, 60)

    worker.kill()
    gate.set()
    during = await costs_of(db_url, WORKFLOW_ID, prflow_home / "cli")
    [in_flight] = [
        row for row in attempts_for_workflow(db_url, WORKFLOW_ID) if row.outcome == "sent"
    ]
    await worker.restart()
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
    after = await costs_of(db_url, WORKFLOW_ID, prflow_home / "cli")

    assert result.llm.status == LlmStatus.completed
    assert in_flight.worst_case_usd > 0
    assert (during["unknown_attempts"], during["unknown_worst_usd"]) == (
        1,
        pytest.approx(in_flight.worst_case_usd),
    )
    assert (after["unknown_attempts"], after["unknown_worst_usd"]) == (
        during["unknown_attempts"],
        during["unknown_worst_usd"],
    ), "the killed attempt stays unknown after the run completes"
    rows = attempts_for_workflow(db_url, WORKFLOW_ID)
    assert len(rows) >= len(scripted_anthropic.requests), "every request received has a row"
    assert Counter(row.outcome for row in rows) == {"success": 3, "sent": 1}
    assert after["usd"] > during["usd"] > 0


@pytest.fixture
async def keyed_cli_env(
    prflow_home: Path,
    temporal_settings: Settings,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
) -> AsyncIterator[dict[str, str]]:
    """A client-only CLI environment whose worker holds a key to the scripted model."""
    scripted_anthropic.script(agent_script())
    await start_worker_process(temporal_settings)
    env = client_environment(temporal_settings, tmp_path / "cli-home")
    env["PRFLOW_DATABASE_URL"] = cached_settings().resolved_database_url()
    env["ANTHROPIC_API_KEY"] = TEST_API_KEY
    yield env


@pytest.mark.parametrize(
    ("options", "mentions"),
    [
        pytest.param(["-o", "{missing}/impact.md"], "does not exist", id="output-dir-missing"),
        pytest.param(["-o", "{tmp}"], "is a directory", id="output-is-a-directory"),
        pytest.param(["--model", "gpt-imaginary"], "gpt-imaginary", id="unknown-model"),
        pytest.param(["--post"], "--pr", id="post-without-pr"),
    ],
)
async def test_a_mistaken_option_costs_nothing(
    options: list[str],
    mentions: str,
    keyed_cli_env: dict[str, str],
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    tmp_path: Path,
) -> None:
    argv = [
        option.replace("{missing}", str(tmp_path / "no-such-dir")).replace("{tmp}", str(tmp_path))
        for option in options
    ]

    run = await run_prflow(
        "impact", "--repo", str(sample_repo), "--base", "base", "--head", "feature", *argv,
        env=keyed_cli_env,
    )  # fmt: skip

    one_line_error(run, 2, mentions)
    assert scripted_anthropic.requests == [], "a usage error must not reach the model"
