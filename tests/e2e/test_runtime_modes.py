"""How ``prflow impact`` finds its Temporal: a warm worker on a laptop, or a cluster's workers.

- Embedded: the first run leaves a warm worker (dev server + workers) that the next
  run with the same settings, secrets and code uses as a mere client; ``prflow server
  status|stop`` show and end it; a run from another environment never uses its queues.
- Cluster (``TEMPORAL_ADDRESS``) with no worker polling: one line within seconds,
  not a silent wait, and the run is still there for the next attempt to attach to.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from prflow.config import Settings
from tests.support.cli_runs import (
    CliRun,
    client_environment,
    embedded_environment,
    free_port,
    run_prflow,
)
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.sample_repos import build_sample_repo
from worker.ports import port_is_free

pytestmark = pytest.mark.temporal

RANGE = ("--base", "base", "--head", "feature", "--format", "json", "-q")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return build_sample_repo(tmp_path / "shop")


def warm_pid(status: CliRun) -> int | None:
    found = re.search(r"warm worker pid (\d+)", status.stdout)
    return int(found.group(1)) if found else None


@pytest.fixture
async def warm_env(tmp_path: Path) -> AsyncIterator[tuple[dict[str, str], int]]:
    port = free_port()
    env = embedded_environment(tmp_path / "home", port, free_port(), warm_seconds=300)
    yield env, port
    await run_prflow("server", "stop", env=env)


async def test_the_first_run_leaves_a_warm_worker_that_later_runs_only_use(
    warm_env: tuple[dict[str, str], int], sample: Path
) -> None:
    env, port = warm_env
    assert warm_pid(await run_prflow("server", "status", env=env)) is None

    first = await run_prflow("impact", *RANGE, env=env, cwd=sample)
    assert first.code == 0, first.describe()
    status = await run_prflow("server", "status", env=env)
    pid = warm_pid(status)
    assert pid is not None, status.describe()
    assert not port_is_free(port), "the dev server outlives the command"

    second = await run_prflow("impact", *RANGE, env=env, cwd=sample)
    assert second.code == 0, second.describe()
    assert json.loads(second.stdout)["risk"] == json.loads(first.stdout)["risk"]
    assert warm_pid(await run_prflow("server", "status", env=env)) == pid

    client = await Client.connect(f"127.0.0.1:{port}", data_converter=pydantic_data_converter)
    queues = [e.task_queue async for e in client.list_workflows('WorkflowType = "impact"')]
    assert len(queues) == 2 and all(q.startswith("prflow-warm-") for q in queues), queues

    stopped = await run_prflow("server", "stop", env=env)
    assert stopped.code == 0 and f"pid {pid}" in stopped.stdout, stopped.describe()
    assert port_is_free(port), "stopping the warm worker stops the server it started"


async def test_runs_after_the_first_start_forked_from_the_warm_fork_server(
    warm_env: tuple[dict[str, str], int], sample: Path, tmp_path: Path
) -> None:
    env, _port = warm_env
    times = tmp_path / "times.jsonl"
    env = {**env, "PRFLOW_CLI_TIMES": str(times)}
    first = await run_prflow("impact", *RANGE, env=env, cwd=sample)
    assert first.code == 0, first.describe()

    def last_forked() -> bool:
        record = json.loads(times.read_text().splitlines()[-1])
        return bool(record["facts"].get("forked") == "1")

    # The warm worker starts its fork server once it is ready for runs; within a minute
    # a command finds it, hands it the command, and gets the same report.
    for _ in range(60):
        later = await run_prflow("impact", *RANGE, env=env, cwd=sample)
        assert later.code == 0, later.describe()
        assert json.loads(later.stdout)["risk"] == json.loads(first.stdout)["risk"]
        if last_forked():
            break
        await asyncio.sleep(1)
    assert last_forked(), "no command was forked from the warm worker's fork server"
    report = json.loads(later.stdout)
    assert report["breaking_changes"] == json.loads(first.stdout)["breaking_changes"]


async def test_a_run_from_another_environment_never_uses_the_warm_workers_queues(
    warm_env: tuple[dict[str, str], int], sample: Path
) -> None:
    env, port = warm_env
    assert (await run_prflow("impact", *RANGE, env=env, cwd=sample)).code == 0
    first_pid = warm_pid(await run_prflow("server", "status", env=env))

    other = {**env, "ANTHROPIC_API_KEY": "a-different-key"}
    run = await run_prflow("impact", *RANGE, "--no-llm", env=other, cwd=sample)
    assert run.code == 0, run.describe()
    # The idle warm worker of the first environment was replaced by one of the second's.
    second_pid = warm_pid(await run_prflow("server", "status", env=other))
    assert second_pid is not None and second_pid != first_pid

    client = await Client.connect(f"127.0.0.1:{port}", data_converter=pydantic_data_converter)
    queues = {e.task_queue async for e in client.list_workflows('WorkflowType = "impact"')}
    assert len(queues) == 2, "each environment ran on queues of its own"


async def test_a_cluster_with_no_worker_says_so_in_one_line_and_keeps_the_run(
    temporal_settings: Settings,
    tmp_path: Path,
    sample: Path,
    start_worker_process: WorkerProcessFactory,
) -> None:
    env = client_environment(temporal_settings, tmp_path / "home")
    queue = temporal_settings.temporal.task_queue

    run = await asyncio.wait_for(run_prflow("impact", "--repo", str(sample), *RANGE, env=env), 60)

    assert run.code == 2, run.describe()
    assert len(run.stderr_lines) == 1, run.describe()
    assert f"no prflow worker is polling task queue '{queue}'" in run.stderr
    assert "prflow worker" in run.stderr and "attaches" in run.stderr

    client = await Client.connect(
        temporal_settings.temporal.address or "", data_converter=pydantic_data_converter
    )
    [queued] = [e async for e in client.list_workflows(f'TaskQueue = "{queue}"')]
    await start_worker_process(temporal_settings)
    # The run the failed command left queued is carried out once a worker serves the queue.
    await asyncio.wait_for(client.get_workflow_handle(queued.id).result(), 120)
    again = await run_prflow("impact", "--repo", str(sample), *RANGE, env=env)
    assert again.code == 0, again.describe()
