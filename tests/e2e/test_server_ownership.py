"""A command knows whose dev server it reaches on the embedded port.

Shared only with commands of the same data directory; another data directory's
command gets one line naming the owner and how to choose another port; a server
whose history file has gone is stopped and replaced, not used.
"""

from __future__ import annotations

import asyncio
import shutil
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.support.cli_runs import embedded_environment, free_port, run_prflow
from tests.support.fixtures_temporal import prflow_script
from tests.support.sample_repos import build_sample_repo
from worker.processes import is_running

pytestmark = pytest.mark.temporal

RANGE = ("--base", "base", "--head", "feature", "--no-llm", "-q", "--format", "json")


@asynccontextmanager
async def prflow_server(env: dict[str, str]) -> AsyncIterator[asyncio.subprocess.Process]:
    server = await asyncio.create_subprocess_exec(
        str(prflow_script()), "server", "--headless", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert server.stdout is not None
    async with asyncio.timeout(60):
        while b"Ctrl-C" not in await server.stdout.readline():
            pass
    try:
        yield server
    finally:
        if server.returncode is None:
            server.send_signal(signal.SIGINT)
        await asyncio.wait_for(server.communicate(), 60)


async def test_another_data_directorys_server_is_named_not_used(tmp_path: Path) -> None:
    port, ui_port = free_port(), free_port()
    owner = embedded_environment(tmp_path / "owner", port, ui_port)
    other = embedded_environment(tmp_path / "other", port, ui_port)
    repo = build_sample_repo(tmp_path / "shop")
    async with prflow_server(owner):
        run = await run_prflow("impact", "--repo", str(repo), *RANGE, env=other)
    assert run.code == 2, run.describe()
    [line] = run.stderr_lines
    assert str(tmp_path / "owner" / "data") in line
    assert "PRFLOW_TEMPORAL__EMBEDDED_PORT" in line
    assert run.stdout == ""


async def test_a_server_whose_history_file_is_gone_is_replaced(tmp_path: Path) -> None:
    port, ui_port = free_port(), free_port()
    env = embedded_environment(tmp_path / "home", port, ui_port)
    repo = build_sample_repo(tmp_path / "shop")
    async with prflow_server(env) as server:
        shutil.rmtree(tmp_path / "home" / "data")  # someone cleaned up the data directory
        run = await run_prflow("impact", "--repo", str(repo), *RANGE, env=env)
        assert run.code == 0, run.describe()
        async with asyncio.timeout(30):
            await server.wait()  # its dev server was stopped, so `prflow server` ended
    assert (tmp_path / "home" / "data" / "temporal.db").exists(), "a new server, a new file"
    assert server.pid is not None and not is_running(server.pid)
