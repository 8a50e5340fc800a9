"""``prflow impact --pr ... --post`` against a loopback GitHub whose PR clones from a bare repo.

The CLI resolves the PR through the fake's REST API, the worker subprocess
mirrors the repository from the PR's file:// ``clone_url`` and upserts the
comment; the test then looks at the PR the way a reviewer would.
"""

from __future__ import annotations

import pytest

from prflow.impact.render.comment import IMPACT_COMMENT_MARKER
from tests.support.cli_runs import CliRun, run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.pr_setup import NUMBER, OWNER, REPO, PullRequestSetup, push_to_pull_request

pytestmark = pytest.mark.temporal


async def impact_on_pr(setup: PullRequestSetup, pr: str, *extra: str) -> CliRun:
    run = await run_prflow("impact", "--pr", pr, "-q", *extra, env=setup.env)
    assert run.code == 0, run.describe()
    return run


async def test_posting_twice_edits_one_comment_in_place(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub
) -> None:
    await impact_on_pr(pr_setup, f"{OWNER}/{REPO}#{NUMBER}", "--post")
    [first] = fake_github.comments(OWNER, REPO, NUMBER)
    assert first.body.startswith(IMPACT_COMMENT_MARKER)
    assert f"**{OWNER}/{REPO}#{NUMBER}**" in first.body
    assert "**Risk Score**:" in first.body and "`Cart.clear`" in first.body
    first_id, first_body = first.id, first.body

    assert "`VERSION`" not in first_body
    api_ts = (pr_setup.work / "web/src/api.ts").read_text(encoding="utf-8")
    new_head = push_to_pull_request(
        pr_setup, {"web/src/api.ts": api_ts.replace("export const VERSION = '1';\n", "")}
    )
    await impact_on_pr(pr_setup, f"{OWNER}/{REPO}#{NUMBER}", "--post")

    comments = fake_github.comments(OWNER, REPO, NUMBER)
    assert [c.id for c in comments] == [first_id], "one comment per PR, edited in place"
    second = comments[0]
    assert second.body != first_body
    assert second.body.startswith(IMPACT_COMMENT_MARKER)
    assert f"({new_head[:7]})" in second.body, "the edited comment describes the new head"
    assert "`VERSION`" in second.body, "the export removed by the new commit is reported"
    assert len(fake_github.requests("PATCH", rf"/issues/comments/{first_id}$")) == 1


async def test_every_pull_request_form_resolves_to_the_same_pr(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub
) -> None:
    forms = [
        f"{OWNER}/{REPO}/pull/{NUMBER}",
        f"{fake_github.web_url}/{OWNER}/{REPO}/pull/{NUMBER}",
    ]
    for form in forms:
        run = await impact_on_pr(pr_setup, form)
        assert run.stdout.startswith("# PR Impact Report"), run.describe()
        assert f"**{OWNER}/{REPO}#{NUMBER}**" in run.stdout, form
        assert "`fetchUser`" in run.stdout, form
    assert fake_github.comments(OWNER, REPO, NUMBER) == [], "nothing is posted without --post"
