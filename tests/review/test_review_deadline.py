"""A whole-run deadline: at it the review stops its agents and reports what it has,
marked incomplete, like a capped phase (issue 18 item 3)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.review.report import ReviewReport
from prflow.store.blobs import get_text
from tests.hostile.checks import one_line_error, plain_environment
from tests.support.cli_runs import run_prflow
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    CART,
    dimension_key,
    review_request,
    start_review,
    two_reviewers_script,
    wait_for_route,
)
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

DEADLINE_SECONDS = 20.0


async def test_at_the_deadline_the_review_reports_what_it_has_marked_incomplete(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    script = two_reviewers_script()
    gate = threading.Event()
    script[dimension_key(CART)][0].release = gate  # answered only after the deadline
    scripted_anthropic.route(script)
    request = review_request(temporal_settings, repo=sample_repo)
    request.deadline_seconds = DEADLINE_SECONDS
    async with run_worker(temporal_client, temporal_settings):
        started = time.monotonic()
        handle = await start_review(temporal_client, temporal_settings, request, "review-due")
        await asyncio.to_thread(wait_for_route, scripted_anthropic, dimension_key(CART))
        await asyncio.sleep(max(DEADLINE_SECONDS - (time.monotonic() - started), 0) + 1)
        gate.set()
        result = await asyncio.wait_for(handle.result(), 120)

    assert not result.complete and "reviewers" in result.cut_phases
    assert len(scripted_anthropic.requests_of(dimension_key(CART))) == 1, "no turn past it"
    report = ReviewReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), result.report_key)
    )
    cut = next(p for p in report.phases if p.name == "reviewers")
    assert "wall-clock" in cut.detail
    assert "This review is incomplete" in result.inline["md"]


@pytest.mark.parametrize("command", ["impact", "review"])
async def test_a_mistyped_deadline_is_one_line_and_exit_2(
    command: str, sample_repo: Path, tmp_path: Path
) -> None:
    run = await run_prflow(
        command, "--repo", str(sample_repo), "--base", "base", "--head", "feature",
        "--deadline", "soon", env=plain_environment(tmp_path / "home"),
    )  # fmt: skip
    one_line_error(run, 2, "--deadline 'soon' is not a duration")
