"""``github_resolve_pr`` through real PyGithub against the loopback GitHub.

Each failure must come out classified: what the user must fix fails at once
with a message saying what to do; what GitHub will get over is retried at the
delay GitHub asked for.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.github import fetch_pull_request, resolve_pull_request
from prflow.config import cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.github_models import PullRequestInfo
from prflow.pr_identifier import PullRequestRef, parse_pr_identifier
from tests.support.fake_github import FakeGitHub, Fault, running_fake_github
from tests.support.fixtures_github import BareRepo, schema_violations

REF = PullRequestRef(owner="octo-org", repo="service", number=12)


async def _resolve(ref: PullRequestRef = REF) -> PullRequestInfo:
    result: PullRequestInfo = await ActivityEnvironment().run(resolve_pull_request, ref)
    return result


async def _resolve_error(ref: PullRequestRef = REF) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        await _resolve(ref)
    return caught.value


def _seed(fake: FakeGitHub, repo: BareRepo) -> None:
    fake.add_pull_request(
        "octo-org",
        "service",
        12,
        repo.path,
        "main",
        "feature",
        repo.base_sha,
        repo.head_sha,
        "Greet by name",
    )


async def test_resolves_branches_commits_and_clone_url(
    fake_github: FakeGitHub, bare_repo_with_pr: BareRepo
) -> None:
    _seed(fake_github, bare_repo_with_pr)

    info = await _resolve()

    assert info == PullRequestInfo(
        ref=REF,
        title="Greet by name",
        html_url=f"{fake_github.web_url}/octo-org/service/pull/12",
        clone_url=bare_repo_with_pr.path.resolve().as_uri(),
        base_ref="main",
        base_sha=bare_repo_with_pr.base_sha,
        head_ref="feature",
        head_sha=bare_repo_with_pr.head_sha,
        state="open",
    )
    assert parse_pr_identifier(info.html_url) == REF
    assert {ex.token for ex in fake_github.exchanges} == {"ghp_fake_prflow_token"}


async def test_missing_pull_request_is_a_user_error_naming_it(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 11)

    error = await _resolve_error()

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "Pull request #12 was not found in octo-org/service" in error.message


async def test_missing_repository_is_a_user_error_naming_it(fake_github: FakeGitHub) -> None:
    error = await _resolve_error(PullRequestRef(owner="octo-org", repo="nope", number=1))

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "Repository octo-org/nope was not found" in error.message
    assert "token can see the repository" in error.message


async def test_missing_token_fails_before_any_request(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")

    error = await _resolve_error()

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "GITHUB_TOKEN" in error.message
    assert fake_github.exchanges == []


async def test_gh_token_is_accepted_too(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, bare_repo_with_pr: BareRepo
) -> None:
    _seed(fake_github, bare_repo_with_pr)
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("GH_TOKEN", "ghp_fake_prflow_token")

    assert (await _resolve()).head_sha == bare_repo_with_pr.head_sha


async def test_rejected_token_is_a_user_error(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_revoked")

    error = await _resolve_error()

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "401" in error.message
    assert "GITHUB_TOKEN" in error.message


async def test_forbidden_without_rate_limit_is_a_user_error(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 12)
    fake_github.inject(
        Fault(
            403,
            {
                "message": "Resource not accessible by personal access token",
                "documentation_url": "https://docs.github.com/rest/pulls/pulls#get-a-pull-request",
                "status": "403",
            },
            path_pattern="/pulls/",
        )
    )

    error = await _resolve_error()

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "Resource not accessible by personal access token" in error.message
    assert "read access" in error.message


async def test_primary_rate_limit_retries_after_the_reset(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 12)
    reset = fake_github.exhaust_rate_limit(reset_in_seconds=120)

    error = await _resolve_error()

    assert not error.non_retryable
    assert error.type == "GitHubRateLimited"
    assert error.next_retry_delay is not None
    expected = reset - time.time()
    assert expected - 5 <= error.next_retry_delay.total_seconds() <= expected + 5


async def test_secondary_rate_limit_retries_after_retry_after(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 12)
    fake_github.throttle(retry_after_seconds=7)

    error = await _resolve_error()

    assert not error.non_retryable
    assert error.type == "GitHubRateLimited"
    assert error.next_retry_delay == timedelta(seconds=7)


async def test_server_errors_are_retryable_and_the_retry_succeeds(
    fake_github: FakeGitHub, bare_repo_with_pr: BareRepo
) -> None:
    _seed(fake_github, bare_repo_with_pr)
    fake_github.fail_with_server_error(status=502)

    error = await _resolve_error()
    assert not error.non_retryable
    assert "502" in error.message

    assert (await _resolve()).head_sha == bare_repo_with_pr.head_sha


async def test_unreachable_github_is_retryable(fake_github: FakeGitHub) -> None:
    fake_github.stop()

    error = await _resolve_error()

    assert not error.non_retryable
    assert error.type == "GitHubUnavailable"
    assert "Could not reach GitHub" in error.message


async def test_github_enterprise_base_url_is_honoured(
    monkeypatch: pytest.MonkeyPatch, bare_repo_with_pr: BareRepo
) -> None:
    with running_fake_github(api_prefix="/api/v3") as fake:
        fake.add_user("ghe-bot", token="ghe-token")
        _seed(fake, bare_repo_with_pr)
        monkeypatch.setenv("PRFLOW_GITHUB_API_URL", fake.api_url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghe-token")
        cached_settings.cache_clear()
        try:
            info = await _resolve()
        finally:
            cached_settings.cache_clear()

        assert info.base_sha == bare_repo_with_pr.base_sha
        assert [ex.path for ex in fake.exchanges] == [
            "/api/v3/repos/octo-org/service",
            "/api/v3/repos/octo-org/service/pulls/12",
        ]
        assert schema_violations(fake.exchanges) == []


def test_cli_lookup_gives_the_same_answer_and_plain_user_errors(
    fake_github: FakeGitHub, bare_repo_with_pr: BareRepo
) -> None:
    _seed(fake_github, bare_repo_with_pr)

    assert fetch_pull_request(REF).head_sha == bare_repo_with_pr.head_sha
    with pytest.raises(UserError, match="Pull request #13 was not found"):
        fetch_pull_request(REF.model_copy(update={"number": 13}))
