"""A worker SIGKILLed during the reviewer fan-out: the review resumes, and a reviewer that had
finished is not run again (its turns are not sent again, its findings are kept)."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.review.report import ReviewReport
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.review_runs import (
    ADVERSARY,
    CART,
    TYPESCRIPT,
    dimension_key,
    review_request,
    start_review,
    two_reviewers_script,
    wait_for_route,
)
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240


async def test_a_killed_worker_resumes_the_fan_out_without_rerunning_finished_reviewers(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
) -> None:
    gate = threading.Event()
    scripted_anthropic.route(two_reviewers_script(held_by=gate))
    worker = await start_worker_process(temporal_settings)
    request = review_request(temporal_settings, repo=sample_repo)
    for plan in request.plans.values():
        plan.heartbeat_timeout_seconds = 8
    handle = await start_review(temporal_client, temporal_settings, request, "review-worker-crash")
    # The cart reviewer has finished and the layer is judging its findings; TS still waits.
    await asyncio.to_thread(wait_for_route, scripted_anthropic, ADVERSARY)
    await asyncio.to_thread(wait_for_route, scripted_anthropic, dimension_key(TYPESCRIPT))

    worker.kill()
    gate.set()
    await worker.restart()
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    served = Counter(r.turn for r in scripted_anthropic.requests_of(dimension_key(CART)))
    assert served == Counter({0: 1, 1: 1}), "a reviewer that had finished ran again"
    held = scripted_anthropic.requests_of(dimension_key(TYPESCRIPT))
    assert 1 <= len(held) <= 2, "the reviewer in flight is resent at most once per kill"
    report = ReviewReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), result.report_key)
    )
    titles = {f.title for f in report.findings}
    assert "total() lost its tax default" in titles, "the finished reviewer's findings survive"
    assert report.complete
