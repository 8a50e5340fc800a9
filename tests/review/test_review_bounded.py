"""A review stays within its depth's bounds whatever the model does.

The model here explores (it reads on every turn and never concludes by itself), its
planner repeats dimension names and targets, every reviewer asks the same two
investigations, the resolver asks the same deep dive on every pass and the coverage
gate proposes a planned dimension again. A quick review of a large change still runs at
most five reviewer conversations, one of the small sample change at most four (two
planned), each reviewer hears its token share and submits at it (its
finding kept), and the children never report progress to the review per turn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.review.depth_limits import LIMITS, ReviewSize, limits_for
from prflow.review.models import ReviewDepth
from prflow.review.report import ReviewReport
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    ADVERSARY,
    ANATOMY,
    COVERAGE,
    CROSS_REF,
    INTAKE,
    INVESTIGATION,
    PLANNER,
    TOTAL_NEEDS_TAX,
    dimension_key,
    every_pass,
    reading,
    review_request,
    start_review,
    submit,
)
from tests.support.sample_repos import grow_sample_change
from tests.support.scripted_anthropic import RecordedRequest, ScriptedAnthropic, Turn

pytestmark = pytest.mark.temporal

REVIEWER_TOKENS = 12_000
FILES = ["shop/cart.py", "shop/pricing.py", "app/checkout.py", "web/src/api.ts", "README.md"]
REVIEWERS = ["Cart", "TypeScript", "Pricing"]
ASKS = {
    name: [
        {"question": f"Does {name} still round the same way?", "files": ["shop/pricing.py"]},
        {"question": f"Do callers of {name} still pass tax?", "files": ["app/checkout.py"]},
    ]
    for name in REVIEWERS
}


def _exploring(final: Turn, turns: int = 12) -> list[Turn]:
    reads = [reading(("read_file_at_ref", {"path": FILES[i % len(FILES)]}),
                     ("search_code", {"pattern": f"def|{i}"})) for i in range(turns)]  # fmt: skip
    return [*reads, final]


def _script() -> dict[str, list[Turn]]:
    plan = [
        {"name": "Cart", "prompt": "Check the cart.", "target_files": ["shop/cart.py"],
         "priority": 1},
        {"name": "cart ", "prompt": "Check the package.", "target_files": ["shop/__init__.py"],
         "priority": 2},
        {"name": "TypeScript", "prompt": "Check the TS.", "target_files": ["web/src/api.ts"],
         "priority": 2},
        {"name": "TS exports", "prompt": "Check exports.", "target_files": ["web/src/api.ts"],
         "priority": 3},
        {"name": "Pricing", "prompt": "Check pricing.", "target_files": ["shop/pricing.py"],
         "priority": 3},
    ]  # fmt: skip
    script: dict[str, list[Turn]] = {
        INTAKE: [submit("submit_intake", pr_type="feature", complexity="standard",
                        areas_touched=["shop"], risk_signals=[], confident=True)],
        ANATOMY: [submit("submit_anatomy", narrative="API changes.", risk_surfaces=[],
                         unrelated_changes=[], intent_gaps=[])],
        PLANNER: [submit("submit_review_plan", dimensions=plan, cross_ref_hints=[])],
        INVESTIGATION: _exploring(submit("submit_findings", findings=[])),
        ADVERSARY: every_pass(submit("submit_challenges", verdicts=[], missed=[])),
        CROSS_REF: every_pass(
            submit("submit_interactions", compounds=[], deep_dives=ASKS["Cart"][:1])
        ),
        COVERAGE: [submit("submit_coverage", complete=False, gaps=[
            {"name": "Cart", "prompt": "Look at the cart again.",
             "target_files": ["shop/cart.py"]}])],
    }  # fmt: skip
    for name in REVIEWERS:
        script[dimension_key(name)] = _exploring(
            submit("submit_findings", findings=[TOTAL_NEEDS_TAX], investigations=ASKS[name])
        )
    return script


def _tokens(requests: list[RecordedRequest]) -> int:
    total = 0
    for request in requests:
        usage: dict[str, Any] = request.usage or {}
        total += sum(int(usage.get(key) or 0) for key in (
            "input_tokens", "output_tokens", "cache_creation_input_tokens",
            "cache_read_input_tokens"))  # fmt: skip
    return total


def _text_of(request: RecordedRequest) -> str:
    last = request.body["messages"][-1]["content"]
    return " ".join(block.get("text", "") for block in last if isinstance(block, dict))


SAMPLE_SIZE = ReviewSize(code_files=5, code_lines=25, prose_files=1, prose_lines=2)
"""The sample repository's change (shop, web and a CI file): a small one."""


async def _bounded_review(
    client: Client, settings: Settings, repo: Path, scripted: ScriptedAnthropic, name: str
) -> tuple[list[RecordedRequest], ReviewReport, Any, Any]:
    scripted.route(_script())
    request = review_request(settings, repo=repo, depth=ReviewDepth.quick)
    reviewers = request.plans["reviewers"]
    caps = reviewers.caps.model_copy(update={"tokens": REVIEWER_TOKENS})
    request.plans["reviewers"] = reviewers.model_copy(update={"caps": caps})
    async with run_worker(client, settings):
        handle = await start_review(client, settings, request, name)
        result = await asyncio.wait_for(handle.result(), 240)
    report = ReviewReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), result.report_key)
    )
    first_turns = [r for r in scripted.requests if r.turn == 0]
    return first_turns, report, result, handle


async def test_a_large_change_gets_the_quick_depths_full_complement(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    repo = grow_sample_change(sample_repo)
    first_turns, report, _, _ = await _bounded_review(
        temporal_client, temporal_settings, repo, scripted_anthropic, "review-bounds-large"
    )
    routes = [dimension_key(name) for name in REVIEWERS]
    conversations = [r for r in first_turns if r.route in {*routes, INVESTIGATION}]
    assert len(conversations) == LIMITS[ReviewDepth.quick].reviewers == 5
    for route in routes:  # merged repeats and the repeated gap started no second reviewer
        assert sum(1 for r in first_turns if r.route == route) == 1, route
    asked = [r for r in first_turns if r.route == INVESTIGATION]
    assert len(asked) == 2, "six questions asked, two slots left"
    details = {phase.name: phase.detail for phase in report.phases}
    assert (
        "not started (a quick review of this change runs at most 5 reviewers)"
        in (details["reviewers"])
    )


async def test_an_exploring_model_stays_within_a_quick_reviews_bounds(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    first_turns, report, result, handle = await _bounded_review(
        temporal_client, temporal_settings, sample_repo, scripted_anthropic, "review-bounds"
    )
    limits = limits_for(ReviewDepth.quick, SAMPLE_SIZE)
    assert limits.dimensions == (2, 2) and limits.reviewers == 4
    planned = [dimension_key(name) for name in REVIEWERS[:2]]
    conversations = [r for r in first_turns if r.route in {*planned, INVESTIGATION}]
    assert len(conversations) == limits.reviewers
    for route in planned:  # merged repeats and the repeated gap started no second reviewer
        assert sum(1 for r in first_turns if r.route == route) == 1, route
    assert not [r for r in first_turns if r.route == dimension_key("Pricing")], (
        "the third dimension is beyond what this change is sized to"
    )
    asked = [r for r in first_turns if r.route == INVESTIGATION]
    assert len(asked) == 2, "four questions asked, two slots left"
    planner = scripted_anthropic.requests_of(PLANNER)[0]
    assert "write exactly 2 dimensions" in str(planner.body["system"])

    cart = scripted_anthropic.requests_of(dimension_key("Cart"))
    assert _tokens(cart) <= REVIEWER_TOKENS
    assert 1 < len(cart) < 12, "explored, then stopped at its share"
    assert cart[-1].body.get("tool_choice") == {"type": "tool", "name": "submit_findings"}
    assert "[Token share:" in _text_of(cart[1])
    assert "Call submit_findings now" in _text_of(cart[-1])
    assert TOTAL_NEEDS_TAX["title"] in {f.title for f in report.findings}
    assert "reviewers" not in result.cut_phases
    details = {phase.name: phase.detail for phase in report.phases}
    assert "reviewers:d1-cart submitted at its token share" in details["reviewers"]
    assert (
        "not started (a quick review of this change runs at most 4 reviewers)"
        in (details["reviewers"])
    )
    assert "sized to the change (5 code files (+/-25 lines)" in details["planning"]

    history = await handle.fetch_history()
    progress = [
        event
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        and event.workflow_execution_signaled_event_attributes.signal_name == "agent_progress"
    ]
    assert progress == [], "children report no progress after a turn or at their end"
