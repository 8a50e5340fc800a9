"""Record the model requests of one real ``prflow impact`` run at the scripted server.

The CLI runs as a user runs it (embedded Temporal, in-process worker, private
state from :class:`~bench.impact.prflow_cli.PrflowCli`) with the Anthropic SDK
pointed at the scripted Messages API server, so every request the product
builds is recorded exactly as it was sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.impact.errors import BenchError
from bench.impact.measure import run_checked
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF
from bench.tokens.pr_slice import SLICE_BRANCH
from tests.support.scripted_anthropic import RecordedRequest, ScriptedAnthropic

BENCH_API_KEY = "bench-key"


def record_impact_run(
    cli: PrflowCli, repo: Path, server: ScriptedAnthropic, turns: int
) -> tuple[list[RecordedRequest], dict[str, Any]]:
    """The requests of one ``prflow impact`` run with the agent (one per turn), and its report."""
    report = cli.state / "impact.json"
    report.unlink(missing_ok=True)
    env = {
        **cli.env(),
        "ANTHROPIC_API_KEY": BENCH_API_KEY,
        "ANTHROPIC_BASE_URL": server.url,
        "PRFLOW_TEMPORAL__WARM_SECONDS": "0",
    }
    command = [str(cli.binary), "impact", "--repo", str(repo), "--base", BASE_REF]
    command += ["--head", SLICE_BRANCH, "--format", "json", "--output", str(report), "--quiet"]
    run_checked(command, cwd=cli.state, env=env)
    figures = json.loads(report.read_text(encoding="utf-8"))
    _check_agent_finished(figures, turns)
    requests = server.requests
    answered = [request for request in requests if request.status == 200]
    if len(requests) != turns or [r.turn for r in answered] != list(range(turns)):
        served = ", ".join(f"turn {r.turn}: {r.served}" for r in requests)
        raise BenchError(f"expected {turns} answered requests, one per turn; got {served}")
    return answered, figures


def _check_agent_finished(report: dict[str, Any], turns: int) -> None:
    llm = report.get("llm") or {}
    if llm.get("status") != "completed" or llm.get("iterations") != turns:
        raise BenchError(
            f"the agent did not finish its {turns} scripted turns: status "
            f"{llm.get('status')}, {llm.get('iterations')} turns, {llm.get('reason') or ''}"
        )
    kept = len(llm.get("findings") or [])
    rejected = llm.get("rejected_findings") or []
    if rejected:
        raise BenchError(f"the report kept {kept} findings and rejected {rejected}")
