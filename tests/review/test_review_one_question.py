"""One question, one request: a review never sends a question the run already asked.

A planner that proposes the same dimension twice (other name, same prompt and
files) gets one reviewer for it; a finding that two reviewers submit and that
fails its evidence check is reported once; and no request of the run is sent
twice word for word.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.llm.request_identity import request_digest
from prflow.review.report import ReviewReport
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    CART,
    INVENTED,
    PLANNER,
    TOTAL_NEEDS_TAX,
    TYPESCRIPT,
    dimension_key,
    review_request,
    start_review,
    submit,
    two_reviewers_script,
)
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

CART_AGAIN = "Cart callers"


async def test_a_repeated_dimension_runs_once_and_a_rejection_is_reported_once(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    script = two_reviewers_script()
    cart = {"prompt": "Check the cart.", "target_files": ["shop/cart.py"], "priority": 1}
    script[PLANNER] = [
        submit("submit_review_plan", cross_ref_hints=[], dimensions=[
            {"name": CART, **cart},
            {"name": TYPESCRIPT, "prompt": "Check the TS.", "target_files": ["web/src/api.ts"],
             "priority": 2},
            {"name": CART_AGAIN, **cart, "prompt": "  check the   cart. "},
        ])
    ]  # fmt: skip
    script[dimension_key(CART)][-1] = submit(
        "submit_findings", findings=[TOTAL_NEEDS_TAX, INVENTED]
    )
    script[dimension_key(TYPESCRIPT)] = [submit("submit_findings", findings=[INVENTED])]
    script[dimension_key(CART_AGAIN)] = [submit("submit_findings", findings=[])]
    scripted_anthropic.route(script)
    request = review_request(temporal_settings, repo=sample_repo)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-once")
        result = await asyncio.wait_for(handle.result(), 180)

    report = ReviewReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), result.report_key)
    )
    assert scripted_anthropic.requests_of(dimension_key(CART))
    again = scripted_anthropic.requests_of(dimension_key(CART_AGAIN))
    assert not again, str(again[0].body["system"])[:3000] + str(again[0].body["messages"][0])[:3000]
    invented = [r for r in report.rejected_findings if "an invented problem" in r]
    assert len(invented) == 1, report.rejected_findings
    sent = Counter(
        request_digest({k: v for k, v in r.body.items() if k != "stream"})
        for r in scripted_anthropic.requests
    )
    repeats = {digest: n for digest, n in sent.items() if n > 1}
    assert repeats == {}, json.dumps(repeats)
