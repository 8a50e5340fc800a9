"""Replies, thread resolution, push rules and conversation webhooks on the loopback GitHub,
driven by real PyGithub (prflow's own thread functions where prflow has them)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import github
import pytest
from github import Auth

from activities.github.errors import user_errors_raised
from activities.github.review_threads import fetch_review_threads
from activities.github.thread_actions import reply_in_thread, set_thread_resolved
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN, BareRepo
from tests.support.webhook_payloads import (
    comment_delivery,
    pull_request_delivery,
    review_comment_delivery,
    review_thread_delivery,
    schema_problems,
)

PR = PullRequestRef(owner="octo-org", repo="service", number=5)
T = TypeVar("T")


def _client(fake: FakeGitHub) -> github.Github:
    return github.Github(
        base_url=fake.api_url,
        auth=Auth.Token(FAKE_GITHUB_TOKEN),
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


def _unwrapped(func: Callable[[], T]) -> T:
    """Run a GitHub write as the CLI does: user mistakes as :class:`UserError`."""
    return user_errors_raised(func)


def test_a_reply_joins_the_thread_of_the_comment_it_answers(fake_github_pr: FakeGitHub) -> None:
    thread = fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [("alice", "Off by one?"), ("bob", "Agreed")]
    )
    opener, reply_to_reply = (c.id for c in thread.comments)

    posted = _unwrapped(lambda: reply_in_thread(PR, reply_to_reply, "Fixed in the next push."))

    assert posted.in_reply_to_id == opener  # GitHub threads replies under the first comment
    (read,) = fetch_review_threads(PR)
    assert [c.body for c in read.comments] == ["Off by one?", "Agreed", "Fixed in the next push."]
    assert read.comments[-1].id == posted.id
    (sent,) = fake_github_pr.requests("POST", r"/replies$")
    assert sent.path.endswith(f"/pulls/5/comments/{opener}/replies")
    assert (sent.status, sent.response_body["in_reply_to_id"]) == (201, opener)
    rest = {c.id: c for c in _client(fake_github_pr).get_repo("octo-org/service").get_pull(5)
            .get_review_comments()}  # fmt: skip
    assert rest[posted.id].raw_data["in_reply_to_id"] == opener
    assert "in_reply_to_id" not in rest[opener].raw_data


def test_a_reply_with_a_marker_is_posted_once(fake_github_pr: FakeGitHub) -> None:
    thread = fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [(FAKE_GITHUB_LOGIN, "finding"), ("alice", "why?")]
    )
    opener = thread.comments[0].id
    body = "Because the loop starts at 1.\n<!-- prflow:reply 42 -->"

    first = _unwrapped(lambda: reply_in_thread(PR, opener, body, marker="<!-- prflow:reply 42 -->"))
    again = _unwrapped(lambda: reply_in_thread(PR, opener, body, marker="<!-- prflow:reply 42 -->"))

    assert (first.created, again.created, again.id) == (True, False, first.id)
    assert len(fake_github_pr.requests("POST", r"/replies$")) == 1


def test_a_reply_to_a_comment_that_is_not_there_is_one_clear_line(
    fake_github_pr: FakeGitHub,
) -> None:
    with pytest.raises(UserError, match="Review comment 999 was not found on octo-org/service#5"):
        _unwrapped(lambda: reply_in_thread(PR, 999, "hello"))
    thread = fake_github_pr.add_review_thread("octo-org", "service", 5, "a.py", 1, [("a", "x")])
    refused = _client(fake_github_pr).get_repo("octo-org/service").get_pull(5)
    with pytest.raises(github.GithubException) as err:  # GitHub wants a body
        refused._requester.requestJsonAndCheck(
            "POST", f"{refused.url}/comments/{thread.comments[0].id}/replies", input={}
        )
    assert err.value.status == 422


def test_resolve_and_unresolve_change_the_thread_github_shows(fake_github_pr: FakeGitHub) -> None:
    thread = fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [(FAKE_GITHUB_LOGIN, "finding")]
    )

    resolved = _unwrapped(lambda: set_thread_resolved(PR, thread.id, resolved=True))
    assert (resolved.id, resolved.is_resolved) == (thread.id, True)
    assert [t.is_resolved for t in fetch_review_threads(PR)] == [True]
    assert thread.resolved_by == FAKE_GITHUB_LOGIN

    reopened = _unwrapped(lambda: set_thread_resolved(PR, thread.id, resolved=False))
    assert reopened.is_resolved is False
    assert [t.is_resolved for t in fetch_review_threads(PR)] == [False]
    mutations = [ex.request_body["query"] for ex in fake_github_pr.requests("POST", r"/graphql$")]
    assert any("resolveReviewThread(input:" in q for q in mutations)
    assert any("unresolveReviewThread(input:" in q for q in mutations)


def test_resolving_needs_write_access_and_a_real_thread(fake_github_pr: FakeGitHub) -> None:
    thread = fake_github_pr.add_review_thread("octo-org", "service", 5, "a.py", 1, [("a", "x")])
    with pytest.raises(UserError, match="Review thread PRRT_nope was not found"):
        _unwrapped(lambda: set_thread_resolved(PR, "PRRT_nope", resolved=True))

    fake_github_pr.set_role("octo-org", "service", FAKE_GITHUB_LOGIN, "read")
    with pytest.raises(UserError, match=r"refused resolving .* the token needs pull requests"):
        _unwrapped(lambda: set_thread_resolved(PR, thread.id, resolved=True))
    assert thread.is_resolved is False


def _commit_on(bare: Path, parent: str, text: str) -> str:
    """A new commit on top of ``parent`` written straight into the bare repository."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": "/dev/null"}  # fmt: skip

    def run(*args: str, stdin: str | None = None) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(bare), *args],
            input=stdin, capture_output=True, text=True, check=True, env=env,
        ).stdout.strip()  # fmt: skip

    blob = run("hash-object", "-w", "--stdin", stdin=text)
    tree = run("mktree", stdin=f"100644 blob {blob}\tapp.py\n")
    return run("commit-tree", tree, "-p", parent, stdin="fix\n")


def _ref(bare: Path, name: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(bare), "rev-parse", name],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip


def test_a_push_through_the_api_moves_the_pull_request(
    fake_github: FakeGitHub, bare_repo_with_pr: BareRepo
) -> None:
    bare = bare_repo_with_pr.path
    fake_github.add_pull_request(
        "octo-org", "service", 5, bare_repo_path=bare,
        base_sha=bare_repo_with_pr.base_sha, head_sha=bare_repo_with_pr.head_sha,
    )  # fmt: skip
    fixed = _commit_on(bare, bare_repo_with_pr.head_sha, "def greet(name):\n    return name\n")
    branch = _client(fake_github).get_repo("octo-org/service").get_git_ref("heads/feature")

    branch.edit(fixed)

    issue = fake_github.issue_state("octo-org", "service", 5)
    assert issue is not None and issue.pull is not None
    assert issue.pull.head_sha == fixed
    assert _ref(bare, "refs/pull/5/head") == _ref(bare, "refs/heads/feature") == fixed
    with pytest.raises(github.GithubException) as err:  # back to the base: not a fast forward
        branch.edit(bare_repo_with_pr.base_sha)
    assert (err.value.status, err.value.data["message"]) == (422, "Update is not a fast forward")


def test_pushes_github_refuses(fake_github: FakeGitHub, bare_repo_with_pr: BareRepo) -> None:
    bare = bare_repo_with_pr.path
    head = bare_repo_with_pr.head_sha
    fake_github.add_pull_request(
        "octo-org", "service", 5, bare_repo_path=bare, base_sha=bare_repo_with_pr.base_sha,
        head_sha=head, author="outsider", head_owner="outsider",
    )  # fmt: skip
    fixed = _commit_on(bare, head, "x = 1\n")
    client = _client(fake_github)
    pull = client.get_repo("octo-org/service").get_pull(5)
    assert (pull.head.repo.full_name, pull.head.repo.fork) == ("outsider/service", True)

    fork_branch = client.get_repo("outsider/service").get_git_ref("heads/feature")
    with pytest.raises(github.GithubException) as to_fork:
        fork_branch.edit(fixed)
    assert to_fork.value.status == 403

    fake_github.set_role("octo-org", "service", FAKE_GITHUB_LOGIN, "triage")
    own_branch = client.get_repo("octo-org/service").get_git_ref("heads/main")
    with pytest.raises(github.GithubException) as no_push:
        own_branch.edit(fixed, force=True)
    assert no_push.value.status == 403
    assert _ref(bare, "refs/heads/feature") == head
    assert _ref(bare, "refs/heads/main") == bare_repo_with_pr.base_sha

    fake_github.set_role("octo-org", "service", FAKE_GITHUB_LOGIN, "write")
    issue = fake_github.issue_state("octo-org", "service", 5)
    assert issue is not None and issue.pull is not None
    issue.pull.maintainer_can_modify = True  # the fork's owner allows maintainers' pushes
    fork_branch.edit(fixed)
    assert issue.pull.head_sha == fixed


def test_permissions_are_the_callers_role(fake_github_pr: FakeGitHub) -> None:
    fake_github_pr.set_role("octo-org", "service", "helper", "triage")
    service = _client(fake_github_pr).get_repo("octo-org/service")
    assert service.permissions.push is True and service.permissions.admin is False
    assert service.get_collaborator_permission("helper") == "read"
    assert service.get_collaborator_role_name("helper") == "triage"
    assert service.get_collaborator_role_name("octo-org") == "admin"
    fake_github_pr.set_role("octo-org", "service", FAKE_GITHUB_LOGIN, "read")
    service = _client(fake_github_pr).get_repo("octo-org/service")
    assert (service.permissions.push, service.permissions.pull) == (False, True)


def test_conversation_webhooks_match_githubs_published_schemas(
    fake_github_pr: FakeGitHub,
) -> None:
    thread = fake_github_pr.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [(FAKE_GITHUB_LOGIN, "finding"), ("alice", "no")]
    )
    fake_github_pr.set_role("octo-org", "service", "alice", "write")
    reply = review_comment_delivery(fake_github_pr, "octo-org", "service", 5, thread.comments[1].id)
    fake_github_pr.resolve_thread(thread.id, by="alice")
    resolved = review_thread_delivery(fake_github_pr, thread.id, "resolved", sender="alice")
    fake_github_pr.unresolve_thread(thread.id, by="alice")
    unresolved = review_thread_delivery(fake_github_pr, thread.id, "unresolved", sender="alice")
    asked = comment_delivery(fake_github_pr, "octo-org", "service", 5, "/prflow ask why?")
    pushed = pull_request_delivery(
        fake_github_pr, "octo-org", "service", 5, "synchronize", before="1" * 40
    )
    fake_github_pr.set_pull_state("octo-org", "service", 5, state="closed", merged=True)
    closed = pull_request_delivery(fake_github_pr, "octo-org", "service", 5, "closed")

    for delivery in (reply, resolved, unresolved, asked, pushed, closed):
        assert schema_problems(delivery) == [], delivery.event
    comment = reply.payload["comment"]
    assert (comment["in_reply_to_id"], comment["author_association"]) == (
        thread.comments[0].id,
        "COLLABORATOR",
    )
    assert resolved.payload["thread"]["node_id"] == thread.id
    assert [c["body"] for c in resolved.payload["thread"]["comments"]] == ["finding", "no"]
    assert (closed.payload["pull_request"]["merged"], closed.payload["action"]) == (True, "closed")


def test_a_push_outdates_the_threads_on_lines_it_changed(
    fake_github: FakeGitHub, bare_repo_with_pr: BareRepo
) -> None:
    bare = bare_repo_with_pr.path
    fake_github.add_pull_request(
        "octo-org", "service", 5, bare_repo_path=bare,
        base_sha=bare_repo_with_pr.base_sha, head_sha=bare_repo_with_pr.head_sha,
    )  # fmt: skip
    pull = _client(fake_github).get_repo("octo-org/service").get_pull(5)
    pull.create_review(
        body="two findings",
        event="COMMENT",
        comments=[
            {"path": "app.py", "line": 1, "side": "RIGHT", "body": "name the parameter"},
            {"path": "app.py", "line": 2, "side": "RIGHT", "body": "f-string"},
        ],
    )
    # A line above both, and the second one rewritten.
    moved = _commit_on(
        bare, bare_repo_with_pr.head_sha, "# greeting\ndef greet(name):\n    return 'hi ' + name\n"
    )
    _client(fake_github).get_repo("octo-org/service").get_git_ref("heads/feature").edit(moved)

    kept, changed = fetch_review_threads(PR)
    assert (kept.is_outdated, kept.line) == (False, 2)  # followed its line down
    assert (changed.is_outdated, changed.line) == (True, None)
