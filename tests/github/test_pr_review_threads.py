"""Unresolved review threads read through GitHub's GraphQL API from the loopback GitHub."""

from __future__ import annotations

import pytest
import requests

from activities.github.pr_tools import unresolved_comments
from activities.github.review_threads import fetch_review_threads
from prflow.config import cached_settings
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_TOKEN

PR = PullRequestRef(owner="octo-org", repo="service", number=5)


def test_threads_come_with_authors_bots_and_resolution(fake_github_pr: FakeGitHub) -> None:
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [("alice", "Off by one?"), ("bob", "Fixed")]
    )
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "db.py", 9, [("coderabbitai[bot]", "SQL injection risk")]
    )
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 1, [("alice", "nit")], resolved=True
    )
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "old.py", 2, [("carol", "stale")], outdated=True
    )

    report = unresolved_comments(PR, exclude_authors=[], page=1, page_size=20)

    assert (report.total_threads, report.unresolved_threads) == (4, 3)
    first, bot, outdated = report.threads.items
    assert (first.path, first.line, [c.body for c in first.comments]) == (
        "app.py",
        3,
        ["Off by one?", "Fixed"],
    )
    assert (bot.author, bot.comments[0].author_type) == ("coderabbitai", "Bot")
    assert (outdated.is_outdated, outdated.line) == (True, None)
    (query,) = fake_github_pr.requests("POST", r"/graphql$")
    assert query.token == FAKE_GITHUB_TOKEN
    assert query.request_body["variables"]["number"] == 5


def test_excluded_bots_disappear_whichever_way_they_are_spelt(fake_github_pr: FakeGitHub) -> None:
    fake_github_pr.add_review_thread("octo-org", "service", 5, "a.py", 1, [("alice", "please")])
    fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "b.py", 1, [("coderabbitai[bot]", "nit")]
    )
    report = unresolved_comments(PR, exclude_authors=["coderabbitai[bot]"], page=1, page_size=20)
    assert [t.author for t in report.threads.items] == ["alice"]


def test_more_threads_than_one_graphql_page_are_all_read(fake_github_pr: FakeGitHub) -> None:
    for index in range(120):
        fake_github_pr.add_review_thread(
            "octo-org", "service", 5, f"f{index}.py", 1, [("alice", f"thread {index}")]
        )
    threads = fetch_review_threads(PR)
    assert [t.path for t in threads] == [f"f{i}.py" for i in range(120)]
    assert len(fake_github_pr.requests("POST", r"/graphql$")) == 3  # 50 + 50 + 20

    page = unresolved_comments(PR, exclude_authors=[], page=6, page_size=20)
    info = page.threads.pagination
    assert (info.total_pages, info.has_next, info.has_previous) == (6, False, True)
    assert page.threads.items[-1].path == "f119.py"


def test_unknown_pull_request_is_a_user_error(fake_github_pr: FakeGitHub) -> None:
    with pytest.raises(UserError, match="octo-org/service#77 was not found"):
        unresolved_comments(
            PR.model_copy(update={"number": 77}), exclude_authors=[], page=1, page_size=20
        )
    with pytest.raises(UserError, match="not found"):
        unresolved_comments(
            PullRequestRef(owner="octo-org", repo="nope", number=5),
            exclude_authors=[],
            page=1,
            page_size=20,
        )


def _post_graphql(fake: FakeGitHub, threads_selection: str) -> dict[str, object]:
    query = (
        '{ repository(owner: "octo-org", name: "service") { pullRequest(number: 5) { '
        f"reviewThreads{threads_selection} }} }} }}"
    )
    answer: dict[str, object] = requests.post(
        fake.web_url + "/graphql",
        json={"query": query},
        headers={"Authorization": f"bearer {FAKE_GITHUB_TOKEN}"},
        timeout=10,
    ).json()
    return answer


def test_the_fake_rejects_queries_github_would_reject(fake_github_pr: FakeGitHub) -> None:
    misspelt = _post_graphql(fake_github_pr, "(first: 5) { nodes { resolved } }")
    too_many = _post_graphql(fake_github_pr, "(first: 101) { totalCount }")
    unpaged = _post_graphql(fake_github_pr, " { totalCount }")

    assert str(misspelt["errors"]).startswith(
        "[{'message': \"Cannot query field 'resolved' on type 'PullRequestReviewThread'."
    )
    assert "exceeds the `first` limit of 100 records" in str(too_many["errors"])
    assert "You must provide a `first` or `last` value" in str(unpaged["errors"])


def test_github_enterprise_serves_graphql_under_api(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGitHub(api_prefix="/api/v3") as fake:
        fake.add_user("ghe-user", token="ghe-token")
        fake.add_pull_request("team", "app", 2)
        fake.add_review_thread("team", "app", 2, "x.py", 4, [("dave", "why?")])
        monkeypatch.setenv("PRFLOW_GITHUB_API_URL", fake.api_url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghe-token")
        cached_settings.cache_clear()
        try:
            threads = fetch_review_threads(PullRequestRef(owner="team", repo="app", number=2))
        finally:
            cached_settings.cache_clear()
        assert [t.comments[0].body for t in threads] == ["why?"]
        assert [ex.path for ex in fake.requests("POST")] == ["/api/graphql"]


def test_comment_ids_come_from_full_database_id_and_the_deprecated_field_is_refused(
    fake_github_pr: FakeGitHub,
) -> None:
    thread = fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [("alice", "64-bit id")]
    )
    thread.comments[0].id = 2**40 + 7  # past Int's 32 bits: only BigInt carries it
    (found,) = fetch_review_threads(PR)
    assert found.comments[0].id == 2**40 + 7
    (query,) = fake_github_pr.requests("POST", r"/graphql$")
    assert "fullDatabaseId" in query.request_body["query"]

    old = requests.post(
        f"{cached_settings().github_api_url}/graphql",
        json={"query": '{ node(id: "x") { ... on PullRequestReviewComment { databaseId } } }'},
        headers={"Authorization": f"bearer {FAKE_GITHUB_TOKEN}"},
        timeout=10,
    ).json()
    assert "deprecated" in old["errors"][0]["message"]
