"""The Temporal activities: tool results land in the blob store; user errors fail fast."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.repo_tools import resolve_range_activity, run_repo_tool
from prflow.errors import USER_ERROR_TYPE
from prflow.repo_models import RepoSpec, ResolvedRange, ResolveRangeInput, ToolCallInput
from prflow.store.blobs import get_text
from tests.support.fixtures_git import PullRequestRepo


def test_resolve_range_activity_pins_the_commits(pr_repo: PullRequestRepo) -> None:
    inp = ResolveRangeInput(spec=RepoSpec(location=str(pr_repo.path)), base="main", head="feature")

    r = ActivityEnvironment().run(resolve_range_activity, inp)

    assert (r.head_sha, r.merge_base_sha) == (pr_repo.head_sha, pr_repo.fork_sha)


def test_unknown_ref_fails_the_activity_without_retry(pr_repo: PullRequestRepo) -> None:
    inp = ResolveRangeInput(spec=RepoSpec(location=str(pr_repo.path)), base="main", head="nope")

    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(resolve_range_activity, inp)

    assert caught.value.type == USER_ERROR_TYPE
    assert caught.value.non_retryable
    assert "nope" in caught.value.message


def test_tool_output_is_stored_with_a_short_preview(pr_range: ResolvedRange, blob_db: str) -> None:
    inp = ToolCallInput(
        range=pr_range, tool="git_diff", arguments={"file": "data/big.txt", "limit": 2000}
    )

    out = ActivityEnvironment().run(run_repo_tool, inp)

    assert out.ok
    assert out.error is None
    stored = get_text(blob_db, out.content_key)
    assert stored.startswith("diff --git a/data/big.txt b/data/big.txt")
    assert "line 1500" in stored
    assert len(out.preview.encode()) <= 2048
    assert stored.startswith(out.preview)


def test_tool_mistakes_come_back_as_results(pr_range: ResolvedRange, blob_db: str) -> None:
    inp = ToolCallInput(range=pr_range, tool="read_file_at_ref", arguments={"path": "/etc/passwd"})

    out = ActivityEnvironment().run(run_repo_tool, inp)

    assert not out.ok
    assert out.error is not None
    assert "absolute path" in out.error
    assert get_text(blob_db, out.content_key) == out.error
