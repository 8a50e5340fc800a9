"""Interrupted and killed commands leave nothing behind (a ``prflow server`` running, no
``TEMPORAL_ADDRESS``: each command serves its run on task queues private to its process).

A run is held in flight by an ``ssh://`` transport that waits while a file exists; the
command is then killed or interrupted, and the same command run again must finish.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.test_concurrent_runs import held_transport, start_impact, until_exists
from tests.support.cli_runs import CLI_TIMEOUT_SECONDS, embedded_environment, free_port
from tests.support.fixtures_temporal import prflow_script
from tests.support.sample_repos import build_sample_repo

pytestmark = pytest.mark.temporal

RERUN_WITHIN_SECONDS = 60.0


@dataclass
class Setup:
    env: dict[str, str]
    transport: Path
    origin: str


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Setup]:
    """A ``prflow server`` on free ports, and the env of a command that uses it."""
    port, ui_port = free_port(), free_port()
    env = embedded_environment(tmp_path / "home", port, ui_port)
    server = await asyncio.create_subprocess_exec(
        str(prflow_script()), "server", "--headless", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert server.stdout is not None
    async with asyncio.timeout(60):
        while b"Ctrl-C" not in await server.stdout.readline():
            pass
    transport = tmp_path / "transport"
    origin = build_sample_repo(tmp_path / "origin" / "shop")
    try:
        yield Setup({**env, **held_transport(transport)}, transport, f"ssh://fakehost{origin}")
    finally:
        (transport / "hold").unlink(missing_ok=True)
        server.send_signal(signal.SIGINT)
        await asyncio.wait_for(server.communicate(), 60)


async def _in_flight(setup: Setup) -> asyncio.subprocess.Process:
    command = await start_impact(setup.origin, setup.env)
    await until_exists(setup.transport / "fetching")
    return command.process


async def _rerun_finishes(setup: Setup) -> None:
    (setup.transport / "hold").unlink(missing_ok=True)
    started = time.monotonic()
    again = await start_impact(setup.origin, setup.env)
    run = await again.finish()
    assert run.code == 0, run.describe()
    assert time.monotonic() - started < RERUN_WITHIN_SECONDS


async def test_the_same_command_after_a_killed_one_restarts_its_run(served: Setup) -> None:
    process = await _in_flight(served)
    process.kill()
    await process.wait()
    await _rerun_finishes(served)


async def test_ctrl_c_prints_one_line_exits_130_at_once_and_leaves_no_stranded_run(
    served: Setup,
) -> None:
    process = await _in_flight(served)
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    async with asyncio.timeout(CLI_TIMEOUT_SECONDS):
        _, err = await process.communicate()
    took = time.monotonic() - started
    lines = [line for line in err.decode().splitlines() if line.strip()]
    assert process.returncode == 130, err.decode()
    assert took < 5, f"exited {took:.1f}s after Ctrl-C"
    assert len(lines) == 1 and "interrupted" in lines[0], lines
    assert "run the same command again" in lines[0]
    await _rerun_finishes(served)


async def test_a_second_ctrl_c_exits_immediately(served: Setup) -> None:
    process = await _in_flight(served)
    process.send_signal(signal.SIGINT)
    await asyncio.sleep(0.05)
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    async with asyncio.timeout(CLI_TIMEOUT_SECONDS):
        await process.communicate()
    assert process.returncode == 130
    assert time.monotonic() - started < 1.5
