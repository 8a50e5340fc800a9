"""Every start path of one server joins one run per head: the CLI and the queue's job."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from prflow.agent.planning import phase_plan
from prflow.cli.run_client import start_or_attach
from prflow.cli.run_target import pr_head
from prflow.config import Settings
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE, ImpactRequest
from prflow.pr_identifier import PullRequestRef
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.events import PrEvent, map_delivery
from prflow.queue.state import RunOutcome
from prflow.review.kind import REVIEW
from prflow.review.queue_job import review_job
from tests.queue.conftest import queue_handle, wait_for_status
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import pull_request_delivery

pytestmark = pytest.mark.temporal


def cli_request(settings: Settings, pr: PullRequestRef) -> ImpactRequest:
    """What ``prflow impact --pr … --post --no-llm`` asks for."""
    return ImpactRequest(
        pull_request=pr,
        pr_head_sha=pr_head(pr),
        post_comment=True,
        llm=phase_plan(settings, IMPACT, LLM_PHASE, enabled=False),
    )


async def test_the_cli_and_the_queue_run_one_job_for_the_same_head(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    head = org.open_pr("shop", 1)
    pr = PullRequestRef(owner=org.org, repo="shop", number=1)
    async with run_worker(temporal_client, temporal_settings):
        # GitHub turns slow at the comment step: the CLI's run is in flight when the hook lands.
        slow = org.fake.hold("GET", r"/issues/1/comments$")
        cli = await start_or_attach(
            temporal_client,
            IMPACT,
            cli_request(temporal_settings, pr),
            queue_names(temporal_settings),
        )
        delivery = pull_request_delivery(org.fake, org.org, "shop", 1, "opened")
        event = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
        assert isinstance(event, PrEvent)
        await deliver(temporal_client, event, queue_names(temporal_settings))
        handle = queue_handle(temporal_client, org, "shop", 1)
        await wait_for_status(handle, lambda s: s.running is not None)
        slow.set()
        status = await wait_for_status(handle, lambda s: s.state.last_reviewed_sha == head)
        await cli.result()

    [run] = status.state.runs
    assert (run.head_sha, run.outcome, run.workflow_id) == (head, RunOutcome.completed, cli.id)
    assert run.detail.startswith("joined")
    started = [
        w.id
        async for w in temporal_client.list_workflows(
            f'WorkflowType = "impact" AND WorkflowId = "{cli.id}"'
        )
    ]
    assert started == [cli.id], "one impact run for the head, whoever started it"
    marked = [c for c in org.fake.comments(org.org, "shop", 1) if "prflow" in c.body]
    assert len(marked) == 1


def test_the_cli_and_the_queue_name_a_review_of_one_head_alike(
    temporal_settings: Settings, org: SimulatedOrg
) -> None:
    from prflow.queue.jobs import QueueJob
    from prflow.queue.repo_config import RepoConfig

    head = org.open_pr("shop", 2)
    pr = PullRequestRef(owner=org.org, repo="shop", number=2)
    queued = review_job(
        QueueJob(
            pr=pr,
            head_sha=head,
            base_sha=head,
            clone_url="file:///x",
            config=RepoConfig(),
            queues=queue_names(temporal_settings),
        ),
        temporal_settings,
    )
    from prflow.review.run_models import ReviewRequest

    cli = ReviewRequest(pull_request=pr, pr_head_sha=pr_head(pr), post=True)
    assert REVIEW.workflow_id(cli) == REVIEW.workflow_id(queued) == f"review:{pr.slug}@{head[:12]}"
