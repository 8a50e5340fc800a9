"""A repository that opts in with ``[docsync]``: the queue runs doc sync after impact on each
head and keeps one sticky docsync comment, edited in place on the next push."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.docsync.run_models import DOCSYNC_COMMENT_MARKER
from prflow.queue.delivery import deliver, queue_names
from prflow.queue.state import RunOutcome
from tests.queue.conftest import queue_handle, wait_for_status
from tests.queue.test_pr_queue_workflow import event_of
from tests.support.fake_github import FakeComment
from tests.support.fixtures_temporal import run_worker
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import pull_request_delivery

pytestmark = pytest.mark.temporal

PR_FILES: dict[str, str | bytes | None] = {
    ".prflow.toml": '[docsync]\ndocs = ["docs/*.md"]\n',
    "shop/pricing.py": "def cost(amount: int, tax: int) -> int:\n    return amount + tax\n",
    "docs/pricing.md": "# Pricing\n\nCall `price(2)` to price an item.\n",
}


def docsync_comments(org: SimulatedOrg) -> list[FakeComment]:
    return [c for c in org.fake.comments(org.org, "shop", 3) if DOCSYNC_COMMENT_MARKER in c.body]


async def test_docsync_runs_after_impact_and_edits_one_comment_in_place(
    temporal_client: Client, temporal_settings: Settings, org: SimulatedOrg
) -> None:
    queues = queue_names(temporal_settings)
    head = org.open_pr("shop", 3, PR_FILES)
    handle = queue_handle(temporal_client, org, "shop", 3)
    async with run_worker(temporal_client, temporal_settings):
        opened = pull_request_delivery(org.fake, org.org, "shop", 3, "opened")
        await deliver(temporal_client, event_of(opened), queues)
        status = await wait_for_status(handle, lambda s: len(s.state.runs) == 2, within=120)
        assert [(r.kind, r.head_sha, r.outcome) for r in status.state.runs] == [
            ("impact", head, RunOutcome.completed),
            ("docsync", head, RunOutcome.completed),
        ]
        ours = [
            c for c in org.fake.comments(org.org, "shop", 3) if DOCSYNC_COMMENT_MARKER in c.body
        ]
        assert len(ours) == 1 and "`docs/pricing.md`" in ours[0].body
        assert "symbol `price`, removed" in ours[0].body

        second = org.push("shop", 3, {"docs/pricing.md": "# Pricing\n\nOld: `price(2)`.\n"})
        pushed = pull_request_delivery(org.fake, org.org, "shop", 3, "synchronize", before=head)
        await deliver(temporal_client, event_of(pushed), queues)
        await wait_for_status(handle, lambda s: len(s.state.runs) == 4, within=120)

    again = docsync_comments(org)
    assert [c.id for c in again] == [ours[0].id], "one docsync comment, edited in place"
    assert second[:12] in again[0].body
