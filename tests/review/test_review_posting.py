"""Posting to the loopback GitHub: one review with inline comments GitHub accepts (off-diff
findings in the body, a committable suggestion), one sticky summary; then incremental reruns."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.fingerprints import fingerprint_of_comment
from prflow.review.render.summary import REVIEW_COMMENT_MARKER, read_state
from prflow.review.report import ReviewReport
from prflow.review.run_models import ReviewRequest, ReviewResult
from prflow.review.synthesis import ReviewEvent
from prflow.store.blobs import get_text
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
    finding,
    review_request,
    review_script,
    start_review,
    submit,
)
from tests.support.sample_repos import build_sample_repo, commit_all, git, write_files
from tests.support.scripted_anthropic import ScriptedAnthropic, Turn

pytestmark = pytest.mark.temporal

OWNER, REPO, NUMBER = "octo-org", "shop", 7
PR = PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER)
RESULT_TIMEOUT = 180
NEW_PRICING = (
    "def discount(amount: float, percent: float) -> int:\n"
    "    return int(amount * (1 - percent / 100))\n\n\n"
    "def shipping_cost(weight: float) -> float:\n"
    "    return weight * 1.5\n\n\n"
    "def bulk_discount(amount: float) -> float:\n"
    "    return amount * 1.1  # meant as a discount\n"
)


def _report(key: str) -> ReviewReport:
    db = cached_settings().resolved_database_url()
    return ReviewReport.model_validate_json(get_text(db, key))


@pytest.fixture
def pr_repos(tmp_path: Path, fake_github: FakeGitHub) -> tuple[Path, Path]:
    """The sample repository pushed to a bare 'origin' that PR #7 of the fake lives in."""
    work = build_sample_repo(tmp_path / "work")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        OWNER,
        REPO,
        NUMBER,
        bare_repo_path=bare,
        base_sha=git(work, "rev-parse", "main"),
        head_sha=git(work, "rev-parse", "feature"),
        title="Reshape the cart and web APIs",
        body="Removes Cart.clear and renames fetchUser.",
    )
    return work, bare


async def test_one_review_with_valid_inline_comments_then_only_new_commits_are_reviewed(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    fake_github: FakeGitHub,
    pr_repos: tuple[Path, Path],
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    work, bare = pr_repos
    scripted_anthropic.route(review_script(work))
    request = review_request(temporal_settings, pull_request=PR, post=True)
    async with run_worker(temporal_client, temporal_settings):
        first = await _review(temporal_client, temporal_settings, request, "review-post")

        (review,) = fake_github.reviews(OWNER, REPO, NUMBER)
        assert review.state == "CHANGES_REQUESTED" and first.event == ReviewEvent.request_changes
        posts = fake_github.requests("POST", r"/pulls/7/reviews$")
        assert [p.status for p in posts] == [200], "GitHub accepted every inline comment"
        comments = fake_github.review_comments(OWNER, REPO, NUMBER)
        assert len(comments) == first.inline_comments > 0
        tax = next(c for c in comments if "total() lost its tax default" in c.body)
        assert (tax.placed.path, tax.placed.line, tax.placed.side) == ("shop/cart.py", 9, "RIGHT")
        assert "```suggestion\ndef total(cart: Cart, tax: float = 0.0) -> float:\n```" in tax.body
        assert "Found by " + CART in tax.body and "🟠 Important" in tax.body
        assert all(fingerprint_of_comment(c.body) for c in comments)
        assert "checkout() still calls the removed Cart.clear" in review.body  # off the diff
        assert "app/checkout.py is not changed in this pull request" in review.body
        (summary,) = fake_github.comments(OWNER, REPO, NUMBER)
        assert summary.body.startswith(REVIEW_COMMENT_MARKER)
        state = read_state(summary.body)
        assert state is not None and state.head == first.head_sha

        # A person resolves the thread on total(); then a new commit lands.
        threads = fake_github.review_threads(OWNER, REPO, NUMBER)
        resolved = next(t for t in threads if "total() lost its tax default" in t.comments[0].body)
        fake_github.resolve_thread(resolved.id)
        git(work, "checkout", "-q", "feature")
        write_files(work, {"shop/pricing.py": NEW_PRICING})
        new_head = commit_all(work, "bulk discount")
        git(work, "push", "-q", str(bare), "feature")
        fake_github.push_to_pull(OWNER, REPO, NUMBER, new_head)
        scripted_anthropic.route(_rerun_script())
        second = await _review(
            temporal_client, temporal_settings, request, "review-incremental-post"
        )

        assert second.reviewed_from_sha == first.head_sha and second.head_sha == new_head
        planner_prompt = scripted_anthropic.requests_of(PLANNER)[-1].body["messages"][0]
        assert "shop/pricing.py" in str(planner_prompt)
        assert "- shop/cart.py" not in str(planner_prompt), "cart.py had no new commits"
        report = _report(second.report_key)
        assert report.suppressed.on_resolved_threads == 1
        assert report.suppressed.already_posted >= 1
        reviews = fake_github.reviews(OWNER, REPO, NUMBER)
        assert len(reviews) == 2
        new_comments = [c for c in fake_github.review_comments(OWNER, REPO, NUMBER)
                        if c.review_id == reviews[1].id]  # fmt: skip
        first_prints = {fingerprint_of_comment(c.body) for c in comments}
        assert {fingerprint_of_comment(c.body) for c in new_comments}.isdisjoint(first_prints)
        assert any("bulk_discount multiplies" in c.body for c in new_comments)
        (summary,) = fake_github.comments(OWNER, REPO, NUMBER)
        assert read_state(summary.body).head == new_head  # type: ignore[union-attr]
        assert "new since the last review" in summary.body

        third = await _review(temporal_client, temporal_settings, request, "review-nothing-new")
        assert third.already_reviewed and len(fake_github.reviews(OWNER, REPO, NUMBER)) == 2


async def _review(
    client: Client, settings: Settings, request: ReviewRequest, workflow_id: str
) -> ReviewResult:
    handle = await start_review(client, settings, request, workflow_id)
    return await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)


def _rerun_script() -> dict[str, list[Turn]]:
    bug = finding(
        "shop/pricing.py",
        10,
        "return amount * 1.1  # meant as a discount",
        "bulk_discount multiplies instead of discounting",
        severity="important",
        suggestion="    return amount * 0.9",
    )
    repeated = dict(TOTAL_NEEDS_TAX)
    return {
        PLANNER: [
            submit(
                "submit_review_plan",
                dimensions=[{"name": PRICING, "prompt": "Check the new discount.",
                             "target_files": ["shop/pricing.py"], "priority": 1}],
                cross_ref_hints=[],
            )
        ],
        dimension_key(PRICING): [submit("submit_findings", findings=[bug, repeated])],
        **_layer_and_gates(),
    }  # fmt: skip


def _layer_and_gates() -> dict[str, list[Turn]]:
    return {
        INTAKE: [submit("submit_intake", pr_type="feature", complexity="standard",
                        areas_touched=["shop"], risk_signals=[], confident=True)],
        ANATOMY: [submit("submit_anatomy", narrative="Adds a bulk discount.", risk_surfaces=[],
                         unrelated_changes=[], intent_gaps=[])],
        ADVERSARY: every_pass(submit("submit_challenges", verdicts=[], missed=[])),
        CROSS_REF: every_pass(submit("submit_interactions", compounds=[], deep_dives=[])),
        COVERAGE: [submit("submit_coverage", complete=True, gaps=[])],
    }  # fmt: skip


async def test_on_your_own_pull_request_the_review_is_posted_as_a_comment(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    fake_github: FakeGitHub,
    pr_repos: tuple[Path, Path],
) -> None:
    """GitHub refuses REQUEST_CHANGES (and APPROVE) on one's own PR with a 422: the same
    review, inline comments and all, goes out as COMMENT instead of failing the run."""
    issue = fake_github.issue_state(OWNER, REPO, NUMBER)
    assert issue is not None
    issue.author = FAKE_GITHUB_LOGIN
    request = review_request(temporal_settings, pull_request=PR, post=True, model=False)
    async with run_worker(temporal_client, temporal_settings):
        result = await _review(temporal_client, temporal_settings, request, "review-own-pr")

    assert result.event == ReviewEvent.request_changes, "the verdict itself is unchanged"
    statuses = [p.status for p in fake_github.requests("POST", r"/pulls/7/reviews$")]
    assert statuses == [422, 200]
    (review,) = fake_github.reviews(OWNER, REPO, NUMBER)
    assert review.state == "COMMENTED"
    assert len(fake_github.review_comments(OWNER, REPO, NUMBER)) == result.inline_comments > 0


async def test_a_rerun_on_the_same_head_keeps_its_findings_in_the_summary(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    fake_github: FakeGitHub,
    pr_repos: tuple[Path, Path],
) -> None:
    """A rerun of the whole PR on the same head finds what the first run posted: the head
    keeps its one review, and the sticky summary still lists every finding (not "Findings
    none")."""
    request = review_request(temporal_settings, pull_request=PR, post=True, model=False)
    async with run_worker(temporal_client, temporal_settings):
        first = await _review(temporal_client, temporal_settings, request, "review-static")
        (summary,) = fake_github.comments(OWNER, REPO, NUMBER)
        first_headline = next(x for x in summary.body.split("\n") if x.startswith("**Risk**"))
        rerun = request.model_copy(update={"full": True})
        again = await _review(temporal_client, temporal_settings, rerun, "review-static-again")

    assert first.findings > 0 and again.head_sha == first.head_sha
    assert len(fake_github.reviews(OWNER, REPO, NUMBER)) == 1, "one review per head"
    (summary,) = fake_github.comments(OWNER, REPO, NUMBER)
    headline = next(x for x in summary.body.split("\n") if x.startswith("**Findings**") or
                    x.startswith("**Risk**"))  # fmt: skip
    assert "**Findings** none" not in headline
    assert headline.split("· **Inline**")[0] == first_headline.split("· **Inline**")[0]
    assert "(posted earlier)" in summary.body
    assert f"{first.findings} of these were posted by an earlier review." in summary.body
