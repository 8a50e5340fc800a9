"""``prflow docsync --pr ... --open-pr --post`` with a scripted doc agent: one draft follow-up
PR on the PR's branch carrying the edit (through the Git Data API), and the sticky comment."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from prflow.config import Settings
from prflow.docsync.run_models import DOCSYNC_COMMENT_MARKER
from tests.support.cli_runs import client_environment, run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.fixtures_temporal import WorkerProcess
from tests.support.pr_setup import NUMBER, OWNER, REPO
from tests.support.sample_repos import build_sample_repo, git
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

pytestmark = pytest.mark.temporal

PRICING = "docs/pricing.md"
FIX = {
    "old_string": "Use `legacy_rate()` for the old tax rate.",
    "new_string": "The old tax rate is gone; pass `tax` to `total()`.",
    "reason": "legacy_rate() was removed",
}


@pytest.fixture
async def pr_env(
    fake_github: FakeGitHub, temporal_settings: Settings, tmp_path: Path
) -> AsyncIterator[tuple[dict[str, str], Path]]:
    work = build_sample_repo(tmp_path / "shop")
    git(work, "checkout", "-q", "feature")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        OWNER,
        REPO,
        NUMBER,
        bare_repo_path=bare,
        base_sha=git(work, "rev-parse", "main"),
        head_sha=git(work, "rev-parse", "feature"),
    )
    settings = temporal_settings.model_copy(deep=True)
    settings.github_api_url = fake_github.api_url
    env = client_environment(settings, tmp_path / "home")
    with ScriptedAnthropic() as model:
        model.route(
            {
                f"Doc to keep true: `{PRICING}`": [
                    Turn(
                        tool_uses=[
                            ToolUse("edit_article", {"path": "docs/pricing.md", "edits": [FIX]})
                        ]
                    ),
                    Turn(tool_uses=[ToolUse("finish_doc", {"changed": True, "reason": "gone"})]),
                ]
            }
        )
        worker_env = {**env, "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": TEST_API_KEY}
        worker = WorkerProcess(worker_env, tmp_path / "worker.log")
        await worker.start()
        try:
            yield env, bare
        finally:
            try:
                await worker.stop()
            except TimeoutError:
                worker.kill()


async def test_open_pr_opens_one_draft_follow_up_with_the_edits(
    pr_env: tuple[dict[str, str], Path], fake_github: FakeGitHub
) -> None:
    env, bare = pr_env
    pr = f"{OWNER}/{REPO}#{NUMBER}"
    run = await run_prflow("docsync", "--pr", pr, "--open-pr", "--post", "-q", env=env)
    assert run.code == 0, run.describe()
    assert "opened the draft follow-up PR" in run.stderr

    follow_ups = [p for p in fake_github.pulls(OWNER, REPO) if p.number != NUMBER]
    assert len(follow_ups) == 1
    [draft] = follow_ups
    assert draft.pull is not None and draft.pull.draft
    assert draft.pull.base_ref == "feature"  # on top of the PR's own branch
    assert "legacy_rate() was removed" in (draft.body or "")
    branch = f"refs/heads/{draft.pull.head_ref}"
    assert "pass `tax` to `total()`" in git(bare, "show", f"{branch}:docs/pricing.md")
    changed = git(bare, "diff", "--name-only", f"{branch}^", branch)
    assert changed.splitlines() == ["docs/pricing.md"]

    [comment] = fake_github.comments(OWNER, REPO, NUMBER)
    assert comment.body.startswith(DOCSYNC_COMMENT_MARKER)
    assert "Reason _(model text)_: legacy_rate() was removed" in comment.body
