"""A client following a run waits through a server restart instead of giving up."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from prflow.cli.progress import PhaseDisplay
from prflow.cli.run_client import follow
from prflow.cli.workflow_failed import WorkflowFailed
from prflow.config import Settings
from tests.support.cli_runs import free_port
from worker.client import CORE_LOGGER, connect
from worker.devserver import DevServer

pytestmark = pytest.mark.temporal

DOWN_SECONDS = 15.0  # longer than the SDK's own retrying of a lost connection (about 10 s)


async def test_following_a_run_survives_the_server_restarting(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    port, db = free_port(), tmp_path / "temporal.db"
    server = DevServer(port=port, ui_port=None, db_path=db)
    await server.start()
    client = await connect(Settings(), server.address)
    handle = await client.start_workflow(
        "nobody-serves-this", id="followed", task_queue="no-worker-here"
    )
    stream = io.StringIO()
    with PhaseDisplay("followed", stream=stream) as display:
        following = asyncio.create_task(follow(handle, display))
        await asyncio.sleep(1)
        await server.stop()
        await asyncio.sleep(DOWN_SECONDS)
        assert not following.done(), following
        server = DevServer(port=port, ui_port=None, db_path=db)
        await server.start()
        try:
            await client.get_workflow_handle("followed").terminate(reason="test over")
            with pytest.raises(WorkflowFailed, match="test over"):
                await asyncio.wait_for(following, 60)
        finally:
            await server.stop()
    assert "waiting for it to return" in stream.getvalue()
    out, _ = capfd.readouterr()
    assert out == "", "nothing but a report may go to stdout"
    retries = [r for r in caplog.records if r.name.startswith(CORE_LOGGER)]
    assert retries, "the SDK's retry warnings go through logging (stderr), not stdout"
