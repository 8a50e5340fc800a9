"""Two embedded ``prflow impact`` commands at once, one with an API key and one without.

Each command must be served only by workers with its own environment: the
keyed run's model phase completes, the key-less run reports static mode, and
no workflow or activity task of one run is executed by the other command's
worker. Checked with the warm worker off (each command runs in-process
workers; the first one's dev server is shared) and on (the first command
starts a warm worker for its environment; the second, whose environment
differs, must neither use nor replace it while it is in use).

The runs are held so that each one's tasks are dispatched while the other
command's worker polls: the key-less run reads its repository over an
``ssh://`` transport that waits until the test lets it go, and the keyed run's
first model turn waits until the key-less command has exited. The command
that started the dev server thus finishes while the other still uses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from prflow.impact.models import ImpactReport, LlmStatus
from tests.support.cli_runs import CLI_TIMEOUT_SECONDS, CliRun, embedded_environment, free_port
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.fixtures_temporal import prflow_script
from tests.support.impact_runs import agent_script
from tests.support.sample_repos import build_sample_repo
from tests.support.scripted_anthropic import ScriptedAnthropic
from worker.devserver import DevServer
from worker.ports import port_is_free
from worker.warm import LOG_FILE as WARM_LOG

pytestmark = pytest.mark.temporal

RANGE = ("--base", "base", "--head", "feature")
WAIT_TIMEOUT = 60.0


@dataclass
class Command:
    """A running ``prflow`` process whose output is collected when it ends."""

    process: asyncio.subprocess.Process
    data_dir: Path

    async def finish(self) -> CliRun:
        try:
            async with asyncio.timeout(CLI_TIMEOUT_SECONDS):
                out, err = await self.process.communicate()
        except TimeoutError:
            # what the stuck command and the warm worker said, for whoever reads the failure
            self.process.kill()
            out, err = await self.process.communicate()
            run = CliRun(-9, out.decode(errors="replace"), err.decode(errors="replace"))
            log = self.data_dir / WARM_LOG
            said = log.read_text(errors="replace")[-4000:] if log.is_file() else "(none)"
            message = f"not done in {CLI_TIMEOUT_SECONDS:.0f}s: {run.describe()}"
            raise AssertionError(f"{message}\n--- warm worker log ---\n{said}") from None
        code = self.process.returncode
        assert code is not None
        return CliRun(code, out.decode(errors="replace"), err.decode(errors="replace"))


async def start_impact(repo: str, env: dict[str, str]) -> Command:
    process = await asyncio.create_subprocess_exec(
        str(prflow_script()),
        "impact",
        "--repo",
        repo,
        *RANGE,
        "--format",
        "json",
        "-q",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    return Command(process, Path(env["PRFLOW_DATA_DIR"]))


def report_of(run: CliRun, who: str) -> ImpactReport:
    assert run.code == 0, f"{who} command: {run.describe()}"
    return ImpactReport.model_validate_json(run.stdout)


@contextlib.asynccontextmanager
async def reopened_history(data: Path) -> AsyncIterator[Client]:
    """The commands' Temporal history, from the database file their server left behind."""
    server = DevServer(port=free_port(), ui_port=None, db_path=data / "temporal.db")
    await server.start()
    try:
        yield await Client.connect(server.address)
    finally:
        await server.stop()


async def served_by(client: Client, workflow_id: str) -> set[str]:
    """Identities (``pid@host``) of the workers that ran the run's tasks."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    identities: set[str] = set()
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            identities.add(event.workflow_task_started_event_attributes.identity)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            identities.add(event.activity_task_started_event_attributes.identity)
    return identities


async def stop_warm_worker(env: dict[str, str]) -> None:
    process = await asyncio.create_subprocess_exec(
        str(prflow_script()), "server", "stop", env=env, stdout=asyncio.subprocess.DEVNULL
    )
    await process.wait()


HELD_SSH = """#!/bin/sh
# GIT_SSH_VARIANT=simple: $1 is the host, $2 the command to run there. The first
# call (the CLI checking that the remote answers) passes; later ones wait while
# the hold file exists (two minutes at most).
echo >> "{dir}/calls"
if [ "$(wc -l < "{dir}/calls")" -gt 1 ]; then
  touch "{dir}/fetching"
  waited=0
  while [ -e "{dir}/hold" ] && [ "$waited" -lt 1200 ]; do sleep 0.1; waited=$((waited + 1)); done
fi
exec sh -c "git ${{2#git-}}"
"""


def held_transport(directory: Path) -> dict[str, str]:
    """Environment for git to reach ``ssh://`` remotes through :data:`HELD_SSH`."""
    directory.mkdir(parents=True)
    (directory / "hold").touch()
    script = directory / "ssh"
    script.write_text(HELD_SSH.format(dir=directory))
    script.chmod(0o755)
    return {"GIT_SSH_COMMAND": str(script), "GIT_SSH_VARIANT": "simple"}


async def until_exists(path: Path) -> None:
    async with asyncio.timeout(WAIT_TIMEOUT):
        while not await asyncio.to_thread(path.exists):  # noqa: ASYNC110 - another process
            await asyncio.sleep(0.1)


@pytest.mark.parametrize("warm_seconds", [0, 120], ids=["one-shot", "warm"])
async def test_two_runs_with_different_keys_never_serve_each_other(
    warm_seconds: float, scripted_anthropic: ScriptedAnthropic, tmp_path: Path
) -> None:
    home, port = tmp_path / "home", free_port()
    base_env = embedded_environment(home, port, free_port(), warm_seconds=warm_seconds)
    transport = tmp_path / "transport"
    keyless_env = {**base_env, **held_transport(transport)}
    keyed_env = {**base_env, "ANTHROPIC_API_KEY": TEST_API_KEY}
    keyless_origin = build_sample_repo(tmp_path / "keyless" / "shop")
    keyed_repo = build_sample_repo(tmp_path / "keyed" / "shop")
    model_held = threading.Event()
    turns = agent_script()
    turns[0].release = model_held
    scripted_anthropic.script(turns)

    try:
        keyless = await start_impact(f"ssh://fakehost{keyless_origin}", keyless_env)
        await until_exists(transport / "fetching")  # its run waits in the git phase
        keyed = await start_impact(str(keyed_repo), keyed_env)
        await asyncio.to_thread(scripted_anthropic.wait_for_requests, 1, 60)
        (transport / "hold").unlink()  # the key-less run finishes while the keyed one waits
        keyless_run = await keyless.finish()
        model_held.set()
        keyed_run = await keyed.finish()
    finally:
        model_held.set()
        (transport / "hold").unlink(missing_ok=True)
        await stop_warm_worker(base_env)

    keyless_report, keyed_report = report_of(keyless_run, "key-less"), report_of(keyed_run, "keyed")
    assert keyless_report.llm.status == LlmStatus.skipped
    assert "ANTHROPIC_API_KEY is not set" in (keyless_report.llm.reason or "")
    assert keyed_report.llm.status == LlmStatus.completed, keyed_report.llm
    served = sorted(request.turn or 0 for request in scripted_anthropic.requests)
    assert served == [0, 1, 2], "only the keyed run's three turns reached the model"
    assert port_is_free(port), "the last command out stopped the shared dev server"

    async with reopened_history(home / "data") as client:
        keyless_workers = await served_by(client, keyless_report.workflow_id or "")
        keyed_workers = await served_by(client, keyed_report.workflow_id or "")
    assert len(keyless_workers) == 1 and len(keyed_workers) == 1, (keyless_workers, keyed_workers)
    assert keyless_workers != keyed_workers
