"""``prflow docsync --pr ... --post`` against the loopback GitHub: one sticky comment, edited in
place on the next run, with the docs the PR leaves wrong and the line that says why."""

from __future__ import annotations

import pytest

from prflow.docsync.run_models import DOCSYNC_COMMENT_MARKER
from prflow.impact.render.comment import IMPACT_COMMENT_MARKER
from tests.support.cli_runs import run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.pr_setup import NUMBER, OWNER, REPO, PullRequestSetup, push_to_pull_request

pytestmark = pytest.mark.temporal


async def test_one_docsync_comment_per_pr_edited_in_place(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub
) -> None:
    pr = f"{OWNER}/{REPO}#{NUMBER}"
    first_run = await run_prflow("docsync", "--pr", pr, "--post", "-q", env=pr_setup.env)
    assert first_run.code == 0, first_run.describe()
    [first] = fake_github.comments(OWNER, REPO, NUMBER)
    assert first.body.startswith(DOCSYNC_COMMENT_MARKER)
    assert "`docs/pricing.md`" in first.body
    assert "legacy_rate" in first.body  # the evidence line
    assert "Edits were skipped" in first.body  # no model on this worker

    impact = await run_prflow("impact", "--pr", pr, "--post", "-q", env=pr_setup.env)
    assert impact.code == 0, impact.describe()
    pricing = (pr_setup.work / "docs/pricing.md").read_text(encoding="utf-8")
    new_head = push_to_pull_request(
        pr_setup, {"docs/pricing.md": "# Pricing\n\nSee also `legacy_rate`.\n" + pricing}
    )
    again = await run_prflow("docsync", "--pr", pr, "--post", "-q", env=pr_setup.env)
    assert again.code == 0, again.describe()

    comments = fake_github.comments(OWNER, REPO, NUMBER)
    ours = [c for c in comments if c.body.startswith(DOCSYNC_COMMENT_MARKER)]
    assert [c.id for c in ours] == [first.id], "one docsync comment, edited in place"
    assert new_head[:12] in ours[0].body, "the edited comment describes the new head"
    assert "line 6: symbol `legacy_rate`, removed: Use `legacy_rate()`" in ours[0].body  # moved
    assert len([c for c in comments if c.body.startswith(IMPACT_COMMENT_MARKER)]) == 1
