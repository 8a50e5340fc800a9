"""The loopback GitHub speaks GitHub's REST API: shapes, paging, auth and failures.

Driven with real PyGithub and plain ``requests``; every body the fake sent is
checked against the models generated from GitHub's OpenAPI description.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import subprocess
import time
from pathlib import Path

import github
import pytest
import requests
from github import Auth

from tests.support.fake_github import FakeGitHub, Fault
from tests.support.fixtures_git import GitRepoBuilder
from tests.support.fixtures_github import (
    FAKE_GITHUB_LOGIN,
    FAKE_GITHUB_TOKEN,
    SCHEMA_MODEL_NAMES,
    BareRepo,
    schema_violations,
)


def _client(fake: FakeGitHub, token: str = FAKE_GITHUB_TOKEN) -> github.Github:
    return github.Github(
        base_url=fake.api_url,
        auth=Auth.Token(token),
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


def _get(fake: FakeGitHub, path: str, token: str | None = FAKE_GITHUB_TOKEN) -> requests.Response:
    headers = {"Authorization": f"token {token}"} if token else {}
    return requests.get(fake.api_url + path, headers=headers, timeout=10)


def test_pygithub_reads_a_seeded_pull_request_and_its_repository(
    fake_github: FakeGitHub, bare_repo_with_pr: BareRepo
) -> None:
    fake_github.add_pull_request(
        "octo-org",
        "service",
        12,
        bare_repo_with_pr.path,
        "main",
        "feature",
        bare_repo_with_pr.base_sha,
        bare_repo_with_pr.head_sha,
        "Greet by name",
    )
    repo = _client(fake_github).get_repo("octo-org/service")
    pull = repo.get_pull(12)

    assert repo.full_name == "octo-org/service"
    assert pull.title == "Greet by name"
    assert (pull.base.ref, pull.base.sha) == ("main", bare_repo_with_pr.base_sha)
    assert (pull.head.ref, pull.head.sha) == ("feature", bare_repo_with_pr.head_sha)
    assert pull.head.repo.clone_url == bare_repo_with_pr.path.resolve().as_uri()


def test_a_seeded_pull_request_is_fetchable_from_its_clone_url(
    fake_github: FakeGitHub,
    bare_repo_with_pr: BareRepo,
) -> None:
    fake_github.add_pull_request(
        "octo-org",
        "service",
        3,
        bare_repo_with_pr.path,
        "main",
        "feature",
        bare_repo_with_pr.base_sha,
        bare_repo_with_pr.head_sha,
        "t",
    )
    clone_url = _client(fake_github).get_repo("octo-org/service").get_pull(3).base.repo.clone_url
    listed = subprocess.run(
        ["git", "ls-remote", clone_url, "refs/pull/3/head"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert listed.split() == [bare_repo_with_pr.head_sha, "refs/pull/3/head"]


def test_authenticated_user_and_comment_round_trip(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    client = _client(fake_github)
    assert client.get_user().login == FAKE_GITHUB_LOGIN

    issue = client.get_repo("octo-org/service").get_issue(5)
    assert issue.pull_request is not None
    posted = issue.create_comment("first")
    posted.edit("second")

    stored = fake_github.comments("octo-org", "service", 5)
    assert [(c.id, c.author, c.body) for c in stored] == [(posted.id, FAKE_GITHUB_LOGIN, "second")]
    assert posted.html_url.endswith(f"/octo-org/service/pull/5#issuecomment-{posted.id}")
    assert [c.body for c in issue.get_comments()] == ["second"]


def test_comment_lists_are_paged_with_link_headers(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    for index in range(7):
        fake_github.add_comment("octo-org", "service", 5, f"comment {index}", author="alice")

    first = _get(fake_github, "/repos/octo-org/service/issues/5/comments?per_page=3")
    middle = _get(fake_github, "/repos/octo-org/service/issues/5/comments?per_page=3&page=2")
    last = _get(fake_github, "/repos/octo-org/service/issues/5/comments?per_page=3&page=3")

    assert [c["body"] for c in first.json()] == ["comment 0", "comment 1", "comment 2"]
    assert [c["body"] for c in last.json()] == ["comment 6"]
    assert _rels(first.headers["link"]) == {"next": "2", "last": "3"}
    assert _rels(middle.headers["link"]) == {"prev": "1", "next": "3", "last": "3", "first": "1"}
    assert _rels(last.headers["link"]) == {"prev": "2", "first": "1"}
    single = _get(fake_github, "/repos/octo-org/service/issues/5/comments")
    assert len(single.json()) == 7
    assert "link" not in single.headers

    everything = _client(fake_github).get_repo("octo-org/service").get_issue(5).get_comments()
    assert [c.body for c in everything] == [f"comment {i}" for i in range(7)]


def _rels(link: str) -> dict[str, str]:
    found = re.findall(r'<[^>]*[?&]page=(\d+)[^>]*>; rel="(\w+)"', link)
    return {rel: page for page, rel in found}


def test_unknown_things_are_404_with_githubs_error_body(fake_github: FakeGitHub) -> None:
    fake_github.add_issue("octo-org", "service", 9)
    for path in (
        "/repos/octo-org/missing",
        "/repos/octo-org/service/pulls/9",
        "/repos/octo-org/service/pulls/10",
        "/repos/octo-org/service/issues/comments/424242",
    ):
        response = _get(fake_github, path)
        assert response.status_code == 404, path
        assert response.json()["message"] == "Not Found"
        assert response.json()["documentation_url"].startswith("https://docs.github.com/")


def test_private_repositories_are_hidden_from_other_users(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("someone", "secret", private=True)
    fake_github.add_user("someone", token="owner-token")
    assert _get(fake_github, "/repos/someone/secret").status_code == 404
    assert _get(fake_github, "/repos/someone/secret", token="owner-token").status_code == 200


def test_bad_or_missing_credentials_are_401(fake_github: FakeGitHub) -> None:
    bad = _get(fake_github, "/user", token="not-a-token")
    anonymous = _get(fake_github, "/user", token=None)
    assert (bad.status_code, bad.json()["message"]) == (401, "Bad credentials")
    assert (anonymous.status_code, anonymous.json()["message"]) == (401, "Requires authentication")
    with pytest.raises(github.BadCredentialsException):
        _client(fake_github, token="not-a-token").get_user().login  # noqa: B018


def test_comment_bodies_over_githubs_limit_are_refused(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    issue = _client(fake_github).get_repo("octo-org/service").get_issue(5)
    with pytest.raises(github.GithubException) as caught:
        issue.create_comment("x" * 65_537)
    assert caught.value.status == 422
    assert "too long" in str(caught.value.data)
    assert fake_github.comments("octo-org", "service", 5) == []


def test_injected_faults_are_served_once_then_normal_service_resumes(
    fake_github: FakeGitHub,
) -> None:
    reset = fake_github.exhaust_rate_limit(reset_in_seconds=90)
    fake_github.throttle(retry_after_seconds=5)
    fake_github.fail_with_server_error(status=502)

    limited = _get(fake_github, "/user")
    throttled = _get(fake_github, "/user")
    broken = _get(fake_github, "/user")
    fine = _get(fake_github, "/user")

    assert limited.status_code == 403
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert int(limited.headers["x-ratelimit-reset"]) == reset
    assert reset - time.time() > 80
    assert (throttled.status_code, throttled.headers["retry-after"]) == (429, "5")
    assert broken.status_code == 502
    assert fine.status_code == 200
    assert int(fine.headers["x-ratelimit-remaining"]) > 0


def test_faults_can_target_one_method_and_path(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    fake_github.inject(
        Fault(403, {"message": "Resource not accessible"}, method="POST", path_pattern="/comments$")
    )
    assert _get(fake_github, "/repos/octo-org/service/issues/5/comments").status_code == 200
    refused = requests.post(
        fake_github.api_url + "/repos/octo-org/service/issues/5/comments",
        json={"body": "hi"},
        headers={"Authorization": f"token {FAKE_GITHUB_TOKEN}"},
        timeout=10,
    )
    assert refused.status_code == 403


def test_request_log_records_what_was_asked_and_answered(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    _client(fake_github).get_repo("octo-org/service").get_issue(5).create_comment("hello")

    (post,) = fake_github.requests("POST", r"/comments$")
    assert post.request_body == {"body": "hello"}
    assert post.status == 201
    assert post.token == FAKE_GITHUB_TOKEN
    assert post.response_body["body"] == "hello"


def _git_data_calls(fake: FakeGitHub, client: github.Github, root: Path) -> None:
    """Blob, tree, commit, ref and a draft pull through the Git Data API on a real repo."""
    work, bare = root / "work", root / "data.git"
    builder = GitRepoBuilder(work)
    builder.write("README.md", "hello\n")
    builder.commit("base")
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    fake.add_git_repo("octo-org", "data", bare)
    data = client.get_repo("octo-org/data")
    blob = data.create_git_blob("hi\n", "utf-8")
    head = ["git", "--git-dir", str(bare), "rev-parse", "main"]
    base = data.get_git_commit(subprocess.check_output(head, text=True).strip())
    tree = data.create_git_tree(
        [github.InputGitTreeElement("a.txt", "100644", "blob", sha=blob.sha)], base.tree
    )
    commit = data.create_git_commit("add a", tree, [base])
    topic = data.create_git_ref("refs/heads/topic", commit.sha)
    data.get_git_ref("heads/topic")
    topic.edit(base.sha, force=True)
    topic.edit(commit.sha)
    data.create_pull(base="main", head="topic", title="Add a", draft=True)


def test_every_kind_of_response_matches_githubs_published_schema(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    fake_github.add_issue("octo-org", "service", 6)
    fake_github.add_comment("octo-org", "service", 5, "seeded", author="alice")
    client = _client(fake_github)
    client.get_user().login  # noqa: B018
    repo = client.get_repo("octo-org/service")
    repo.get_pull(5)
    repo.get_issue(6)
    comment = repo.get_issue(5).create_comment("new")
    comment.edit("edited")
    repo.get_issue(5).get_comments().get_page(0)
    repo.get_issue(5).get_comment(comment.id)
    _get(fake_github, "/repos/octo-org/nope")
    _get(fake_github, "/user", token="bad")
    requests.post(
        fake_github.api_url + "/repos/octo-org/service/issues/5/comments",
        json={"text": "wrong field"},
        headers={"Authorization": f"token {FAKE_GITHUB_TOKEN}"},
        timeout=10,
    )
    fake_github.add_check_run("octo-org", "service", "1" * 40, "tests", conclusion="failure")
    fake_github.add_commit_status("octo-org", "service", "1" * 40, "ci/legacy", "pending")
    commit = client.withLazy(True).get_repo("octo-org/service").get_commit("1" * 40)
    list(commit.get_check_runs())
    commit.get_combined_status()
    list(repo.get_pulls(state="all"))
    list(client.withLazy(True).get_organization("octo-org").get_repos())
    pull = repo.get_pull(5)
    review = pull.create_review(body="looks fine", event="COMMENT")
    list(pull.get_review_comments())
    list(pull.get_single_review_comments(review.id))
    list(pull.get_files())
    opener = fake_github.add_review_thread("octo-org", "service", 5, "a.py", 1, [("alice", "?")])
    pull.create_review_comment_reply(opener.comments[0].id, "answered")
    repo.get_collaborator_permission("alice")
    with pytest.raises(github.GithubException):  # no diff to place a comment on: 422
        pull.create_review(
            body="b", event="COMMENT", comments=[{"path": "x", "line": 1, "body": "c"}]
        )
    _git_data_calls(fake_github, client, tmp_path)
    fake_github.exhaust_rate_limit()
    _get(fake_github, "/user")

    served = {exchange.schema for exchange in fake_github.exchanges}
    listed = {
        "issue-comment",
        "pull-request-simple",
        "pull-request-review-comment",
        "review-comment",
        "minimal-repository",
        "diff-entry",
    }
    expected = {f"{n}[]" if n in listed else n for n in SCHEMA_MODEL_NAMES}
    expected |= {"issue-comment"}
    assert served >= expected - {"installation-token"}
    assert schema_violations(fake_github.exchanges) == []


def test_schema_check_catches_a_body_github_would_never_send(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 5)
    _get(fake_github, "/repos/octo-org/service/pulls/5")
    served = fake_github.exchanges[-1]
    body = copy.deepcopy(served.response_body)
    del body["head"]["sha"]
    body["number"] = "5"

    problems = schema_violations([dataclasses.replace(served, response_body=body)])

    assert len(problems) == 1
    assert "head.sha" in problems[0]
    assert "number" in problems[0]


def test_api_prefix_serves_github_enterprise_style_urls() -> None:
    with FakeGitHub(api_prefix="/api/v3") as fake:
        fake.add_user("ghe-user", token="ghe-token")
        fake.add_pull_request("team", "app", 2)
        for index in range(3):
            fake.add_comment("team", "app", 2, f"c{index}", author="bob")
        client = github.Github(
            base_url=fake.api_url,
            auth=Auth.Token("ghe-token"),
            retry=None,
            per_page=2,
            seconds_between_requests=None,
        )
        bodies = [c.body for c in client.get_repo("team/app").get_issue(2).get_comments()]

        assert fake.api_url.endswith("/api/v3")
        assert bodies == ["c0", "c1", "c2"]
        assert all(ex.path.startswith("/api/v3/") for ex in fake.exchanges)
        assert requests.get(fake.web_url + "/user", timeout=10).status_code == 404
        assert schema_violations(fake.exchanges) == []


def test_job_logs_redirect_to_a_signed_download_as_github_does(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("octo-org", "service")
    run = fake_github.add_check_run(
        "octo-org", "service", "1" * 40, "tests", conclusion="failure", log="line 1\nline 2\n"
    )
    path = f"/repos/octo-org/service/actions/jobs/{run.id}/logs"
    redirect = requests.get(
        fake_github.api_url + path,
        headers={"Authorization": f"token {FAKE_GITHUB_TOKEN}"},
        allow_redirects=False,
        timeout=10,
    )
    assert redirect.status_code == 302
    location = redirect.headers["location"]
    downloaded = requests.get(location, timeout=10)
    assert (downloaded.status_code, downloaded.text) == (200, "line 1\nline 2\n")
    assert downloaded.headers["content-type"].startswith("text/plain")
    forged = requests.get(location.replace("sig=", "sig=x"), timeout=10)
    assert forged.status_code == 403
    assert _get(fake_github, path, token=None).status_code == 401


def test_pull_lists_filter_by_state_head_and_base(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request("octo-org", "service", 1, head_ref="feat-a")
    fake_github.add_pull_request("octo-org", "service", 2, base_ref="feat-a", head_ref="feat-b")
    fake_github.add_pull_request("octo-org", "service", 3, head_ref="done", merged=True)
    repo = _client(fake_github).get_repo("octo-org/service")

    assert [p.number for p in repo.get_pulls()] == [2, 1]
    assert [p.number for p in repo.get_pulls(state="all")] == [3, 2, 1]
    assert [p.number for p in repo.get_pulls(state="closed")] == [3]
    assert [p.number for p in repo.get_pulls(base="feat-a")] == [2]
    assert [p.number for p in repo.get_pulls(state="all", head="octo-org:done")] == [3]
    assert repo.get_pull(3).merged
