"""`prflow costs` names the phases a cap cut, which cap and why (issue 20 item 8).

Two agents of a probe run on the real dev server (real SDK against the scripted
Messages API) stop at their caps, one at its turn cap after a turn, one at its
USD cap before its first call; the costs command then reads the real ledger.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from temporalio.client import Client
from typer.testing import CliRunner

from prflow.agent.outcome import StopReason
from prflow.cli import costs_cmd
from prflow.config import Settings, cached_settings
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec, ResolvedRange
from tests.agent.probe_workflows import ProbeRequest, ProbeWorkflow
from tests.support.agent_specs import probe_plan, probe_spec
from tests.support.fixtures_temporal import run_worker
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

pytestmark = pytest.mark.temporal

RUN_ID = "probe-cut-phases"


@pytest.fixture
def probe_range(prflow_home: Path, sample_repo: Path) -> ResolvedRange:
    return resolve_range(RepoSpec(location=str(sample_repo)), "base", "feature")


def _costs(*args: str) -> str:
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Stand-in for the prflow root command."""

    costs_cmd.register(app)
    result = CliRunner().invoke(app, ["costs", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


async def test_costs_names_each_cut_phase_and_the_cap_that_cut_it(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.route(
        {"turns": [Turn(tool_uses=[ToolUse("list_changed_files", {})]), Turn(text="Done.")]}
    )
    db_url = cached_settings().resolved_database_url()
    specs = [
        probe_spec(db_url, temporal_settings, probe_range, name="reader", phase="reviewers",
                   plan=probe_plan(temporal_settings, iterations=1),
                   first_message="Use your turns: list the files."),
        probe_spec(db_url, temporal_settings, probe_range, name="deep-dive", phase="deep_dives",
                   plan=probe_plan(temporal_settings, usd=0.000001),
                   first_message="Dig into the change."),
    ]  # fmt: skip
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        handle = await temporal_client.start_workflow(
            ProbeWorkflow.run,
            ProbeRequest(specs=specs),
            id=RUN_ID,
            task_queue=temporal_settings.temporal.task_queue,
        )
        result = await handle.result()
    stops = {outcome.name: outcome.stop for outcome in result.outcomes}
    assert stops == {"reader": StopReason.iterations, "deep-dive": StopReason.budget_usd}

    shown = json.loads(_costs("--workflow-id", RUN_ID, "--database-url", db_url, "--json"))
    cuts = {cut["agent"]: cut for cut in shown["cuts"]}
    assert {name: (c["phase"], c["cap"], c["workflow_id"]) for name, c in cuts.items()} == {
        "reader": ("reviewers", "iterations", RUN_ID),
        "deep-dive": ("deep_dives", "usd", RUN_ID),
    }
    assert cuts["deep-dive"]["reason"].startswith("USD cap: next call")
    assert shown["totals"]["attempts"] == 1, "a cut is no attempt"

    table = _costs("--workflow-id", RUN_ID, "--database-url", db_url)
    assert "Phases cut by a cap" in table
    cut_rows = [line for line in table.splitlines() if "deep_dives" in line or "reviewers" in line]
    assert any("deep-dive" in row and "usd" in row and "USD cap" in row for row in cut_rows)
    assert any("reader" in row and "iterations" in row for row in cut_rows)

    by_phase = _costs("--workflow-id", RUN_ID, "--database-url", db_url, "--by", "phase")
    assert "Phases cut by a cap" in by_phase and "USD cap" in by_phase
