"""Every GitHub request path is built from checked, percent-encoded segments."""

from __future__ import annotations

import pytest

from activities.github.client import repo_full_name
from activities.github.pulls import fetch_pull_request
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from tests.support.fake_github import FakeGitHub


@pytest.mark.parametrize(
    ("owner", "repo"),
    [("acme", "../../etc"), ("..", "etc"), ("acme", ".."), ("ac/me", "x"), ("a" * 40, "x"),
     ("acme", "x\n"), ("acme", "a b"), ("acme", "x" * 101)],
)  # fmt: skip
def test_a_name_github_would_refuse_never_becomes_a_path(owner: str, repo: str) -> None:
    with pytest.raises(UserError, match="is not a GitHub repository"):
        repo_full_name(owner, repo)


def test_valid_names_pass_unchanged() -> None:
    assert repo_full_name("octo-org", "my.repo_name-2") == "octo-org/my.repo_name-2"


def test_a_ref_that_bypassed_validation_sends_nothing(fake_github: FakeGitHub) -> None:
    forged = PullRequestRef.model_construct(owner="acme", repo="../../etc", number=1)
    with pytest.raises(UserError):
        fetch_pull_request(forged)
    assert fake_github.requests() == []
