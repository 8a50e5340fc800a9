"""One review and one summary per head, whoever starts it: two deployments (two Temporal
servers and their workers, sharing only GitHub) racing in step, and the same run twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from prflow.config import Settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.render.summary import REVIEW_COMMENT_MARKER
from prflow.review.run_models import ReviewResult
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import DEV_SERVER_START_TIMEOUT, isolated_settings, run_worker
from tests.support.review_runs import review_request, start_review
from tests.support.sample_repos import build_sample_repo, git
from worker.devserver import temporal_binary
from worker.search_attributes import ALL_KEYS

pytestmark = pytest.mark.temporal

OWNER, REPO, NUMBER = "octo-org", "shop", 7
PR = PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER)
CLAIMS = rf"/repos/{OWNER}/{REPO}/issues/{NUMBER}/comments$"


@pytest.fixture
async def second_server() -> AsyncIterator[Client]:
    """Another deployment's Temporal server: nothing shared with the session's but GitHub."""
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(temporal_binary()),
        search_attributes=ALL_KEYS,
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
        dev_server_startup_timeout=DEV_SERVER_START_TIMEOUT,
    )
    yield env.client
    await env.shutdown()


@pytest.fixture
def pr_head(tmp_path: Path, fake_github: FakeGitHub) -> str:
    work = build_sample_repo(tmp_path / "work")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    head = git(work, "rev-parse", "feature")
    fake_github.add_pull_request(
        OWNER, REPO, NUMBER, bare_repo_path=bare, base_sha=git(work, "rev-parse", "main"),
        head_sha=head, title="Reshape the cart",
    )  # fmt: skip
    return head


async def _wait_parked(fake: FakeGitHub, count: int, within: float = 120.0) -> None:
    for _ in range(int(within / 0.05)):
        if fake.parked("POST", CLAIMS) >= count:
            return
        await asyncio.sleep(0.05)
    pytest.fail(f"{count} claims never reached GitHub together")


async def test_two_deployments_racing_in_step_post_one_review_and_one_summary(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    second_server: Client,
    fake_github: FakeGitHub,
    pr_head: str,
) -> None:
    other_settings = isolated_settings(second_server.service_client.config.target_host)
    in_step = fake_github.hold("POST", CLAIMS)  # both claims leave together
    async with (
        run_worker(temporal_client, temporal_settings),
        run_worker(second_server, other_settings),
    ):
        first = await start_review(
            temporal_client,
            temporal_settings,
            review_request(temporal_settings, pull_request=PR, model=False, post=True),
            "review-deployment-a",
        )
        second = await start_review(
            second_server,
            other_settings,
            review_request(other_settings, pull_request=PR, model=False, post=True),
            "review-deployment-b",
        )
        await _wait_parked(fake_github, 2)
        in_step.set()
        results = await asyncio.wait_for(asyncio.gather(first.result(), second.result()), 180)

    reviews = fake_github.reviews(OWNER, REPO, NUMBER)
    assert len(reviews) == 1, [r.body[-80:] for r in reviews]
    assert f"review@{pr_head}" in reviews[0].body, "the post names the kind and head"
    assert {r.review_url for r in results} == {results[0].review_url}, "the loser reports it"
    comments = fake_github.comments(OWNER, REPO, NUMBER)
    assert [c for c in comments if "prflow-claim" in c.body] == [], "claims are cleaned up"
    assert len([c for c in comments if REVIEW_COMMENT_MARKER in c.body]) == 1


async def test_a_second_run_of_the_same_head_reports_the_posted_review(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    fake_github: FakeGitHub,
    pr_head: str,
) -> None:
    request = review_request(temporal_settings, pull_request=PR, model=False, post=True)
    request.full = True  # reviews the head again instead of answering "already reviewed"
    async with run_worker(temporal_client, temporal_settings):
        one = await start_review(temporal_client, temporal_settings, request, "review-once")
        first: ReviewResult = await asyncio.wait_for(one.result(), 180)
        again = await start_review(temporal_client, temporal_settings, request, "review-again")
        second: ReviewResult = await asyncio.wait_for(again.result(), 180)
    assert len(fake_github.reviews(OWNER, REPO, NUMBER)) == 1
    assert second.review_url == first.review_url
