"""A review request from a PR reference alone (as the org queue starts one), its stable id,
and the model plans: each phase's own tier, scaled together by one budget."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from prflow.agent.planning import phase_plans
from prflow.config import load_settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.kind import PHASES, REVIEW, review_workflow_id
from prflow.review.request import review_request
from prflow.review.run_models import MODEL_PHASES, ReviewRequest

PR = PullRequestRef(owner="acme", repo="api", number=12)


def test_a_pull_request_reference_is_a_whole_request_with_an_id_stable_per_pr() -> None:
    bare = ReviewRequest(pull_request=PR)
    assert not bare.uses_model and not bare.post, "static and silent until asked otherwise"
    assert review_workflow_id(bare) == "review:acme/api#12"
    ci = ReviewRequest(pull_request=PR, repo="/work/checkout", post=True)
    assert review_workflow_id(ci) == "review:acme/api#12", "however the PR is read"
    built = review_request(load_settings(), PR)
    assert built.post and built.uses_model and review_workflow_id(built) == "review:acme/api#12"
    ranged = ReviewRequest(repo="/work/api", base="main", head="topic")
    assert review_workflow_id(ranged).startswith("review:api-") and "main..topic" in (
        review_workflow_id(ranged)
    )


def test_a_request_needs_something_to_review_and_a_pr_to_post_to() -> None:
    with pytest.raises(ValidationError, match="needs a pull request or a repository"):
        ReviewRequest()
    with pytest.raises(ValidationError, match="posting a review needs a pull request"):
        ReviewRequest(repo=".", post=True)


def test_every_phase_gets_its_tier_and_one_budget_scales_them_all() -> None:
    settings = load_settings()
    plans = phase_plans(settings, REVIEW, MODEL_PHASES)
    assert set(plans) == set(MODEL_PHASES)
    assert plans["intake"].model == settings.models.budget
    assert plans["planning"].model == settings.models.premium
    assert plans["reviewers"].model == settings.models.mid
    assert plans["reviewers"].caps.usd == PHASES["reviewers"].usd
    scaled = phase_plans(settings, REVIEW, MODEL_PHASES, budget_usd=1.0)
    assert sum(p.caps.usd for p in scaled.values()) == pytest.approx(1.0)
    ratio = scaled["planning"].caps.usd / scaled["intake"].caps.usd
    assert ratio == pytest.approx(plans["planning"].caps.usd / plans["intake"].caps.usd)
    assert phase_plans(settings, REVIEW, MODEL_PHASES, enabled=False) == {}
