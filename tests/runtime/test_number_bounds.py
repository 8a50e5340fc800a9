"""Invalid numbers never reach a workflow; a workflow that cannot decode its input fails."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError

from prflow.config import Settings
from tests.support.cli_runs import run_prflow
from tests.support.fixtures_temporal import run_worker
from tests.support.sample_repos import commit_all, init_repo, write_files

pytestmark = pytest.mark.temporal

REFUSED = [
    ("impact", "--repo", ".", "--budget-usd", "inf"),
    ("review", "--repo", ".", "--budget-usd", "1e308"),
    ("impact", "--repo", ".", "--max-iterations", "100000000000000000000"),
    ("docsync", "--repo", ".", "--budget-usd", "inf"),
    ("docsync", "--repo", ".", "--max-iterations", "99999999999"),
    ("docsync", "--repo", ".", "--time-limit", "99999999999"),
    ("refactor", "--repo", ".", "--directive", "x", "--budget-usd", "1e308"),
    ("budget", "raise", "impact:x", "--usd", "inf"),
    ("budget", "raise", "impact:x", "--usd", "1e308"),
    ("budget", "raise", "impact:x", "--tokens", "100000000000000000000"),
    ("budget", "raise", "impact:x", "--tokens", "1e20"),
    ("budget", "raise", "", "--usd", "1"),
    ("budget", "show", ""),
]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRFLOW_", "TEMPORAL_"))}
    env["PRFLOW_DATA_DIR"] = str(tmp_path / "data")
    return env


@pytest.mark.parametrize("args", REFUSED, ids=[" ".join(a) for a in REFUSED])
async def test_a_number_out_of_bounds_is_one_line_exit_2(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "repo")  # a real repository: only the number can be refused
    write_files(repo, {"pkg/__init__.py": "VALUE = 1\n"})
    commit_all(repo, "base")
    run = await run_prflow(*args, env=_env(tmp_path), cwd=repo)
    assert run.code == 2, run.describe()
    assert len(run.stderr_lines) == 1 and run.stderr_lines[0].startswith("prflow: error:")
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert not (tmp_path / "data" / "temporal.db").exists(), "refused before anything started"


@pytest.mark.parametrize(
    "toml", ["[budget]\nusd = 1e400\n", "[budget]\ntokens = 100000000000000000000\n"]
)
async def test_a_config_file_number_out_of_bounds_is_named(toml: str, tmp_path: Path) -> None:
    (tmp_path / "prflow.toml").write_text(toml)
    run = await run_prflow("impact", "--repo", ".", env=_env(tmp_path), cwd=tmp_path)
    assert run.code == 2, run.describe()
    [line] = run.stderr_lines
    assert "budget." in line and "prflow.toml" in line


async def test_a_workflow_that_cannot_decode_its_input_fails_at_once(
    temporal_client: Client, temporal_settings: Settings
) -> None:
    undecodable = {"repo": "/nowhere", "llm": {"enabled": True, "caps": {"usd": None}}}
    async with run_worker(temporal_client, temporal_settings):
        handle = await temporal_client.start_workflow(
            "impact", undecodable, id="undecodable-impact",
            task_queue=temporal_settings.temporal.task_queue,
        )  # fmt: skip
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(handle.result(), 30)
