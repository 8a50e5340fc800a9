"""The review workflow on the real Temporal dev server, with scripted model turns per agent."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.review.models import FindingSource
from prflow.review.report import ReviewReport
from prflow.review.run_models import MODEL_PHASES
from prflow.review.synthesis import Multiplier, ReviewEvent
from prflow.store.blobs import get_text
from prflow.store.costs import summarize
from prflow.store.ledger import spend_slices
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import tool_results
from tests.support.review_runs import (
    ADVERSARY,
    CART,
    COVERAGE,
    ESCALATION,
    INVESTIGATION,
    PRICING,
    TYPESCRIPT,
    dimension_key,
    review_request,
    review_script,
    start_review,
    two_reviewers_script,
    wait_for_route,
)
from tests.support.sample_repos import grow_sample_change
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 180


def _report(key: str) -> ReviewReport:
    return ReviewReport.model_validate_json(
        get_text(cached_settings().resolved_database_url(), key)
    )


async def test_static_mode_still_reviews_and_says_the_model_phases_were_skipped(
    prflow_home: Path, temporal_client: Client, temporal_settings: Settings, sample_repo: Path
) -> None:
    request = review_request(temporal_settings, repo=sample_repo, model=False)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-static")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.event == ReviewEvent.request_changes
    assert result.by_severity["critical"] == 2  # Cart.clear and fetchUser, with consumers
    report = _report(result.report_key)
    assert not report.used_model and report.complete
    assert {p.name for p in report.phases if p.state == "skipped"} >= {
        "intake",
        "anatomy",
        "planning",
        "reviewers",
        "adversary",
        "cross_ref",
        "coverage",
    }
    assert all(f.origin == "prflow" for f in report.findings), "no model text in static mode"
    assert {n.reason for n in report.not_reviewed} == {"static mode"}
    assert result.skipped_phases and not result.cut_phases
    assert "Static mode" in result.inline["md"]


async def test_every_phase_runs_with_scripted_turns_and_synthesis_decides(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    repo = grow_sample_change(sample_repo)  # large enough for the quick depth's full bounds
    script = review_script(repo)
    gate = threading.Event()
    script[dimension_key(TYPESCRIPT)][0].release = gate  # held until the layer has started
    scripted_anthropic.route(script)
    request = review_request(temporal_settings, repo=repo)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-agents")
        await asyncio.to_thread(wait_for_route, scripted_anthropic, ADVERSARY)
        gate.set()
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    report = _report(result.report_key)
    assert report.used_model and report.complete, report.phases
    assert report.intake.escalated and report.intake.pr_type == "refactor"
    assert report.semantic is not None and report.semantic.narrative
    assert [d.name for d in report.plan.dimensions] == [CART, TYPESCRIPT] if report.plan else False
    assert "no/such.ts" not in report.plan.dimensions[1].target_files  # type: ignore[union-attr]
    by_title = {f.title: f for f in report.findings}

    tax = by_title["total() lost its tax default"]
    assert tax.placement.inline and tax.placement.line == 9 and tax.placement.exact
    assert Multiplier.adversary_confirmed in tax.multipliers
    assert Multiplier.cross_ref_compound in tax.multipliers
    checkout = by_title["checkout() still calls the removed Cart.clear"]
    assert not checkout.placement.inline, "app/checkout.py is not in the diff: body"
    assert "discount() now truncates to int" in by_title, "the investigation's finding"
    assert "Both public APIs change shape in one release" in by_title
    assert any("an invented problem" in reason for reason in report.rejected_findings)
    ts = next(f for f in report.findings if f.file == "web/src/api.ts" and f.line_start == 7)
    assert ts.origin == "prflow" and TYPESCRIPT in ts.also_found_by, "merged with static"
    assert result.event == ReviewEvent.request_changes

    hops = _reference_reads(scripted_anthropic)
    assert hops[:3] == [False, False, False] and hops[3], "the fourth hop is refused"
    assert scripted_anthropic.requests_of(ESCALATION), "unsure intake escalated"
    assert scripted_anthropic.requests_of(INVESTIGATION), "the reviewer's investigation ran"
    assert len(scripted_anthropic.requests_of(COVERAGE)) == 2, "the outer loop stops at two"
    # The gate names the same gap in both rounds: one question, one agent.
    assert len(scripted_anthropic.requests_of(dimension_key(PRICING))) == 1, "asked once"
    trap = by_title["loadUser answers a fixed name for every id"]
    assert trap.source == FindingSource.adversary
    dives = [r for r in scripted_anthropic.requests_of(INVESTIGATION)
             if "Cross-reference resolver" in str(r.body["messages"][0])]  # fmt: skip
    assert 1 <= len(dives) <= 5, "deep dives ran, within their cap"
    discount = by_title["discount() now truncates to int"]
    assert Multiplier.cross_ref_compound in discount.multipliers, "a deep dive's finding compounds"

    costs = summarize(spend_slices(cached_settings().resolved_database_url(), "review-agents"))
    assert [w.workflow_id for w in costs.by_workflow] == ["review-agents"], "agents count"
    models = {p.phase: p.model for p in costs.by_phase if p.workflow_kind == "review"}
    assert set(models) == set(MODEL_PHASES), "every phase has its own line in prflow costs"
    tiers = temporal_settings.models
    assert models["intake"] == models["coverage"] == tiers.budget
    assert models["planning"] == models["adversary"] == models["cross_ref"] == tiers.premium
    assert models["reviewers"] == models["anatomy"] == models["intake_escalation"] == tiers.mid
    assert costs.totals.usd == pytest.approx(result.cost_usd, rel=0.01)


async def test_a_phase_that_hits_its_cap_stops_and_the_review_says_it_is_incomplete(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.route(two_reviewers_script())
    request = review_request(temporal_settings, repo=sample_repo)
    reviewers = request.plans["reviewers"]
    # Tokens, not dollars: money earlier phases left unspent flows to the reviewers.
    reviewers.caps = reviewers.caps.model_copy(update={"tokens": 100})
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-cut")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert not result.complete and result.cut_phases == ["reviewers"]
    assert not scripted_anthropic.requests_of(dimension_key(CART)), "no call past the cap"
    report = _report(result.report_key)
    cut = next(p for p in report.phases if p.name == "reviewers")
    assert cut.state == "failed" and "token cap" in cut.detail
    assert {n.reason for n in report.not_reviewed} == {"budget"}
    assert result.event != ReviewEvent.approve, "an incomplete review never approves"
    assert result.findings > 0, "what the other phases found is still reported"
    assert "This review is incomplete" in result.inline["md"]


async def test_money_earlier_phases_left_lets_a_phase_with_a_tiny_cap_run_within_the_total(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.route(two_reviewers_script())
    request = review_request(temporal_settings, repo=sample_repo)
    reviewers = request.plans["reviewers"]
    reviewers.caps = reviewers.caps.model_copy(update={"usd": 0.0001})
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-flow")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.complete and not result.cut_phases
    assert scripted_anthropic.requests_of(dimension_key(CART)), "the reviewers ran"
    report = _report(result.report_key)
    spent = {p.name: p.spent.usd for p in report.phases}
    assert spent["reviewers"] > reviewers.caps.usd, "paid from what earlier phases left"
    earlier = ("intake", "anatomy", "planning", "reviewers")
    assert sum(spent[p] for p in earlier) <= sum(request.plans[p].caps.usd for p in earlier)


def _reference_reads(server: ScriptedAnthropic) -> list[bool]:
    """For each file the cart reviewer opened outside its focus: whether it was refused."""
    requests = server.requests_of(dimension_key(CART))
    after_hops = next(r for r in requests if r.turn == 2)
    results = tool_results(after_hops.body)
    return ["Reference-following limit reached" in text for text in results]
