"""A reviewer's investigation starts the moment the reviewer asks for it, beside the
reviewer, so the fan-out's wall time is its longest chain, not the sum (issue 18 item 5).

Each model answer here takes a few seconds (a model that thinks). Asked for mid-run
(``request_investigation``), the investigation runs while its reviewer still works; asked
for in ``submit_findings`` (the only way before), it starts when the reviewer ends.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.review.report import ReviewReport
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    CART,
    COVERAGE,
    DISCOUNT_INT,
    INVESTIGATION,
    TOTAL_NEEDS_TAX,
    dimension_key,
    reading,
    review_request,
    start_review,
    submit,
    two_reviewers_script,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

pytestmark = pytest.mark.temporal

THINK = 4.0
QUESTION = {"question": "Does pricing still round the same way?", "files": ["shop/pricing.py"]}


def _script(mid_run: bool) -> dict[str, Any]:
    base = two_reviewers_script()
    first = (
        Turn(tool_uses=[ToolUse("request_investigation", QUESTION)])
        if mid_run
        else reading(("read_file_at_ref", {"path": "shop/cart.py"}))
    )
    slow = reading(("read_file_at_ref", {"path": "shop/cart.py"}))
    slow.delay_seconds = THINK
    last = submit(
        "submit_findings",
        findings=[TOTAL_NEEDS_TAX],
        investigations=[] if mid_run else [QUESTION],
    )
    last.delay_seconds = THINK
    investigation = submit("submit_findings", findings=[DISCOUNT_INT])
    investigation.delay_seconds = THINK
    return {
        INVESTIGATION: [investigation],
        **{key: turns for key, turns in base.items() if key != dimension_key(CART)},
        dimension_key(CART): [first, slow, last],
    }


async def _review(
    client: Client, settings: Settings, repo: Path, server: ScriptedAnthropic, mid_run: bool
) -> tuple[float, list[str | None], list[str]]:
    """Fan-out wall time (first reviewer request to the coverage gate's), routes in order,
    and the titles of the review's findings."""
    server.route(_script(mid_run))
    before = len(server.requests)
    request = review_request(settings, repo=repo)
    handle = await start_review(client, settings, request, f"review-early-{mid_run}")
    result = await asyncio.wait_for(handle.result(), 180)
    requests = server.requests[before:]
    first = min(r.received_at for r in requests if str(r.route).startswith("# Your review"))
    gate = min(r.received_at for r in requests if r.route == COVERAGE)
    report = ReviewReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), result.report_key)
    )
    return gate - first, [r.route for r in requests], [f.title for f in report.findings]


async def test_an_investigation_asked_for_mid_run_runs_beside_its_reviewer(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    async with run_worker(temporal_client, temporal_settings):
        before, late, late_titles = await _review(
            temporal_client, temporal_settings, sample_repo, scripted_anthropic, mid_run=False
        )
        after, early, early_titles = await _review(
            temporal_client, temporal_settings, sample_repo, scripted_anthropic, mid_run=True
        )
    print(f"fan-out wall time: investigation asked at the end {before:.1f}s, mid-run {after:.1f}s")
    cart = dimension_key(CART)
    last_cart = max(i for i, route in enumerate(early) if route == cart)
    assert early.index(INVESTIGATION) < last_cart, "it started while the reviewer worked"
    assert late.index(INVESTIGATION) > max(i for i, r in enumerate(late) if r == cart)
    assert early.count(INVESTIGATION) == 1, "asked once, run once"
    found = DISCOUNT_INT["title"]
    assert found in early_titles and found in late_titles, "the investigation's finding"
    assert after < before - THINK / 2, (after, before)
