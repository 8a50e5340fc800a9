"""Run ids are named once by the platform; every kind's id keeps its exact shape.

A run id is how a second start joins the run in flight, so a changed id would
start a second run of the same request. The values below are the ids prflow
has always given.
"""

from __future__ import annotations

from typing import Any

import pytest

from prflow.docsync.kind import docsync_workflow_id
from prflow.docsync.run_models import DocsyncRequest
from prflow.impact.kind import impact_workflow_id
from prflow.impact.run_models import ImpactRequest
from prflow.kinds import change_run_id, repository_run_id
from prflow.pr_identifier import PullRequestRef
from prflow.refactor.kind import refactor_workflow_id
from prflow.refactor.run_models import RefactorRequest
from prflow.review.kind import review_workflow_id
from prflow.review.run_models import ReviewRequest

PR = PullRequestRef(owner="acme", repo="api", number=12)
HEAD = "1a2b3c4d5e6f7a8b9c"


def test_a_change_is_named_by_its_pr_head_its_pr_or_its_range() -> None:
    by: dict[str, str | None] = {
        "pr_slug": None,
        "pr_head_sha": None,
        "repo": None,
        "base": None,
        "head": None,
    }
    assert change_run_id("impact", **{**by, "pr_slug": PR.slug, "pr_head_sha": HEAD}) == (
        "impact:acme/api#12@1a2b3c4d5e6f"
    )
    assert change_run_id("impact", **{**by, "pr_slug": PR.slug}) == "impact:acme/api#12"
    ranged = {**by, "repo": "/src/api", "base": "main", "head": "feature"}
    assert change_run_id("review", **ranged) == "review:api-d47212:main..feature"
    assert change_run_id("review", **by) == "review:repo-3a52ce:default..HEAD"
    assert repository_run_id("x", "https://github.com/acme/api.git", "w") == "x:api-ab62e2:w"


@pytest.mark.parametrize(
    ("fields", "impact", "review", "docsync"),
    [
        (
            {"pull_request": PR, "pr_head_sha": HEAD},
            "impact:acme/api#12@1a2b3c4d5e6f",
            "review:acme/api#12@1a2b3c4d5e6f",
            "docsync:acme/api#12",
        ),
        (
            {"repo": "https://github.com/acme/api.git"},
            "impact:api-ab62e2:default..HEAD",
            "review:api-ab62e2:default..HEAD",
            "docsync:api-ab62e2:default..HEAD",
        ),
    ],
)
def test_each_kind_keeps_its_ids(
    fields: dict[str, object], impact: str, review: str, docsync: str
) -> None:
    blank: dict[str, Any] = {
        "pull_request": None,
        "pr_head_sha": None,
        "repo": None,
        "base": None,
        "head": None,
    }
    values = {**blank, **fields}
    assert impact_workflow_id(ImpactRequest.model_construct(**values)) == impact
    assert review_workflow_id(ReviewRequest.model_construct(**values)) == review
    assert docsync_workflow_id(DocsyncRequest.model_construct(**values)) == docsync


def test_a_refactor_is_named_by_repository_and_directive() -> None:
    plain = RefactorRequest(repo="/src/api", directive="make storage async")
    assert refactor_workflow_id(plain) == "refactor:api-d47212:f8f5b42a"
    scoped = RefactorRequest(
        repo="/src/api/", directive="make storage async", include=["src/"], exclude=["tests/"]
    )
    assert refactor_workflow_id(scoped) == "refactor:api-6902f7:ae829da8"
