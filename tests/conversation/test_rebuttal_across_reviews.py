"""End to end: a posted review starts the conversation, the author rebuts a finding in its
thread, and the review of the next head does not raise it again (the summary says so)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.conversation.deliveries import conversation_event
from prflow.conversation.delivery import signal_conversation
from prflow.conversation.kind import conversation_id
from prflow.conversation.markers import reply_marker
from prflow.review.fingerprints import fingerprint_of_comment
from prflow.review.report import ReviewReport
from prflow.search_attributes import KIND
from prflow.store.blobs import get_text
from tests.support.conversation_runs import open_pr, review_comment_delivery, settled
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    ADVERSARY,
    ANATOMY,
    CART,
    COVERAGE,
    CROSS_REF,
    INTAKE,
    PLANNER,
    PRICING,
    TOTAL_NEEDS_TAX,
    dimension_key,
    every_pass,
    review_request,
    start_review,
    submit,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, Turn

pytestmark = pytest.mark.temporal

CONVERSATION = "answers the reply in its thread"
OTHER_FILES = "# Your review dimension: Changes in"
"""Dimensions code adds for the files the plan left out: nothing to find there."""
NEW_PRICING = (
    "def discount(amount: float, percent: float) -> int:\n"
    "    return int(amount * (1 - percent / 100))\n\n\n"
    "def shipping_cost(weight: float) -> float:\n"
    "    return weight * 1.75\n"
)


def _script(dimension: str, target: str) -> dict[str, list[Turn]]:
    """One dimension whose reviewer raises the tax finding (again, on the second head)."""
    return {
        INTAKE: [submit("submit_intake", pr_type="feature", complexity="standard",
                        areas_touched=["shop"], risk_signals=[], confident=True)],
        ANATOMY: [submit("submit_anatomy", narrative="Reshapes the cart.", risk_surfaces=[],
                         unrelated_changes=[], intent_gaps=[])],
        PLANNER: [submit("submit_review_plan", cross_ref_hints=[], dimensions=[
            {"name": dimension, "prompt": "Check it.", "target_files": [target], "priority": 1}
        ])],
        dimension_key(dimension): [submit("submit_findings", findings=[TOTAL_NEEDS_TAX])],
        OTHER_FILES: [submit("submit_findings", findings=[])] * 6,
        ADVERSARY: every_pass(submit("submit_challenges", verdicts=[], missed=[])),
        CROSS_REF: every_pass(submit("submit_interactions", compounds=[], deep_dives=[])),
        COVERAGE: [submit("submit_coverage", complete=True, gaps=[])],
        CONVERSATION: [submit("submit_reply", verdict="rebutted",
                              answer="Understood: callers always pass tax, so no default.")],
    }  # fmt: skip


async def test_a_rebutted_finding_is_not_raised_on_the_next_head(
    prflow_home: Path,
    fake_github: FakeGitHub,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    opened = open_pr(fake_github, tmp_path)
    pr = opened.pr
    request = review_request(temporal_settings, pull_request=pr, post=True)
    scripted_anthropic.route(_script(CART, "shop/cart.py"))
    async with run_worker(temporal_client, temporal_settings):
        first = await (
            await start_review(temporal_client, temporal_settings, request, f"r1-{pr.owner}")
        ).result()
        assert first.inline_comments >= 1
        conversation = temporal_client.get_workflow_handle(conversation_id(pr))
        await settled(conversation, events=1)  # the posted review started it
        tax = next(c for c in opened.pull().get_review_comments() if "tax default" in c.body)
        opened.threads[TOTAL_NEEDS_TAX["title"]] = tax.id
        alice = opened.person("alice")
        reply = opened.pull(alice).create_review_comment_reply(
            tax.id, "This is intended: every caller passes tax explicitly."
        )
        mapped = conversation_event(
            "pull_request_review_comment", "d-r", review_comment_delivery(opened, reply).payload
        )
        assert mapped is not None and await signal_conversation(temporal_client, *mapped)
        state = await settled(conversation, events=2)
        assert state.tally.rebutted == 1
        described = await conversation.describe()

        opened.push({"shop/pricing.py": NEW_PRICING})  # the cited line in cart.py unchanged
        scripted_anthropic.route(_script(PRICING, "shop/pricing.py"))
        second = await asyncio.wait_for(
            (
                await start_review(temporal_client, temporal_settings, request, f"r2-{pr.owner}")
            ).result(),
            180,
        )

    assert described.typed_search_attributes.get(KIND) == "conversation"
    answers = [
        c
        for c in opened.pull().get_review_comments()
        if c.user.login == FAKE_GITHUB_LOGIN and reply_marker(reply.id) in c.body
    ]
    assert len(answers) == 1
    db = cached_settings().resolved_database_url()
    report = ReviewReport.model_validate_json(get_text(db, second.report_key))
    assert report.suppressed.rebutted == 1 and report.findings == []
    assert report.conversation == {"rebutted": 1}
    tax_print = fingerprint_of_comment(tax.body)
    again = [
        c
        for c in opened.pull().get_review_comments()
        if fingerprint_of_comment(c.body) == tax_print and c.id != tax.id
    ]
    assert again == [], "the rebutted finding was not posted again"
    summary = next(c for c in fake_github.comments(pr.owner, pr.repo, pr.number)
                   if "rebutted" in c.body)  # fmt: skip
    assert "1 rebutted earlier" in summary.body
