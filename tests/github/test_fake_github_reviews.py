"""The loopback GitHub's pull request reviews behave as GitHub's do, 422s included.

Driven with real PyGithub; inline comments are judged against the PR's real
diff, and every body the fake sent is validated against GitHub's schema by the
``fake_github`` fixture.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import github
import pytest
from github import Auth, GithubException

from activities.github.review_threads import fetch_review_threads
from prflow.pr_identifier import PullRequestRef
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN
from tests.support.sample_repos import GIT_ENV

OWNER, REPO, NUMBER = "octo-org", "service", 8
BASE = "".join(f"line {n}\n" for n in range(1, 41))


@dataclass(frozen=True)
class PrRepo:
    bare: Path
    base_sha: str
    head_sha: str


def _git(cwd: Path, *args: str) -> str:
    env = {**GIT_ENV, "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def pr_repo(tmp_path: Path) -> PrRepo:
    """A PR changing lines 3 and 30 of ``notes.txt`` (two hunks) and deleting ``old.txt``."""
    work, bare = tmp_path / "work", tmp_path / "origin.git"
    work.mkdir()
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    _git(work, "init", "-q", "-b", "main")
    (work / "notes.txt").write_text(BASE)
    (work / "old.txt").write_text("a\nb\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "base")
    base = _git(work, "rev-parse", "HEAD")
    _git(work, "checkout", "-qb", "feature")
    (work / "notes.txt").write_text(
        BASE.replace("line 3\n", "LINE 3\n").replace("line 30\n", "x\n")
    )
    (work / "old.txt").unlink()
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "head")
    head = _git(work, "rev-parse", "HEAD")
    _git(work, "push", "-q", str(bare), "main", "feature")
    return PrRepo(bare, base, head)


@pytest.fixture
def pull(fake_github: FakeGitHub, pr_repo: PrRepo) -> Any:
    fake_github.add_pull_request(
        OWNER, REPO, NUMBER, pr_repo.bare, base_sha=pr_repo.base_sha, head_sha=pr_repo.head_sha
    )
    client = github.Github(
        base_url=fake_github.api_url,
        auth=Auth.Token(FAKE_GITHUB_TOKEN),
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )
    return client.get_repo(f"{OWNER}/{REPO}").get_pull(NUMBER)


def _comment(path: str, line: int, side: str = "RIGHT", **extra: Any) -> dict[str, Any]:
    return {"path": path, "line": line, "side": side, "body": f"about {path}:{line}", **extra}


def test_a_review_with_comments_on_diff_lines_is_stored_with_its_threads(
    fake_github: FakeGitHub, pull: Any
) -> None:
    comments = [
        _comment("notes.txt", 3),
        _comment("notes.txt", 1),  # context line of the first hunk
        _comment("notes.txt", 30, start_line=28, start_side="RIGHT"),
        _comment("notes.txt", 30, "LEFT"),
        _comment("old.txt", 2, "LEFT"),
    ]
    review = pull.create_review(body="summary", event="COMMENT", comments=comments)

    assert review.state == "COMMENTED" and review.user.login == FAKE_GITHUB_LOGIN
    stored = fake_github.review_comments(OWNER, REPO, NUMBER)
    assert [(c.placed.path, c.placed.line, c.placed.side) for c in stored] == [
        ("notes.txt", 3, "RIGHT"),
        ("notes.txt", 1, "RIGHT"),
        ("notes.txt", 30, "RIGHT"),
        ("notes.txt", 30, "LEFT"),
        ("old.txt", 2, "LEFT"),
    ]
    listed = list(pull.get_review_comments())
    assert [(c.path, c.line, c.start_line) for c in listed][2] == ("notes.txt", 30, 28)
    assert [r.id for r in pull.get_reviews()] == [review.id]
    assert len(list(pull.get_single_review_comments(review.id))) == 5
    threads = fetch_review_threads(PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER))
    assert len(threads) == 5 and not any(t.is_resolved for t in threads)
    fake_github.resolve_thread(threads[0].id)
    again = fetch_review_threads(PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER))
    assert again[0].is_resolved and again[0].comments[0].body == "about notes.txt:3"


@pytest.mark.parametrize(
    ("comment", "error"),
    [
        (_comment("notes.txt", 15), "line must be part of the diff"),
        (_comment("notes.txt", 3, start_line=4), "start_line must precede line"),
        (_comment("notes.txt", 30, start_line=3), "same hunk"),
        (_comment("untouched.txt", 1), "Path could not be resolved"),
        (_comment("old.txt", 1), "line must be part of the diff"),  # deleted: LEFT only
    ],
)
def test_one_comment_off_the_diff_fails_the_whole_review_with_422(
    fake_github: FakeGitHub, pull: Any, comment: dict[str, Any], error: str
) -> None:
    with pytest.raises(GithubException) as raised:
        pull.create_review(body="b", event="COMMENT", comments=[_comment("notes.txt", 3), comment])
    assert raised.value.status == 422
    assert any(error in message for message in raised.value.data["errors"])
    assert fake_github.reviews(OWNER, REPO, NUMBER) == []
    assert fake_github.review_comments(OWNER, REPO, NUMBER) == []


def test_approving_your_own_pull_request_is_refused(fake_github: FakeGitHub, pull: Any) -> None:
    issue = fake_github.issue_state(OWNER, REPO, NUMBER)
    assert issue is not None
    issue.author = FAKE_GITHUB_LOGIN
    with pytest.raises(GithubException) as raised:
        pull.create_review(body="fine", event="APPROVE")
    assert raised.value.status == 422
    assert pull.create_review(body="fine", event="COMMENT").state == "COMMENTED"
