"""A comment GitHub would refuse moves to the body; the review and its other inline
comments stay. Against the stateful GitHub server, which answers 422 for a comment on a file
whose diff is too large to show, as github.com does."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.github.reviews import _post
from prflow.pr_identifier import PullRequestRef
from prflow.review.render.github_review import ReviewComment, ReviewPayload
from prflow.review.stage_models import PostedReview, PostReviewInput
from tests.support.fake_github import FakeGitHub
from tests.support.sample_repos import commit_all, git, init_repo, write_files

OWNER, REPO, NUMBER = "octo-org", "refusals", 9
PR = PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER)
MARKER = "<!-- prflow:review-run refusals -->"
CODE = "".join(f"value_{i} = {i}\n" for i in range(30))


@pytest.fixture
def pr(tmp_path: Path, fake_github: FakeGitHub) -> tuple[Path, Path, str]:
    work = init_repo(tmp_path / "work")
    write_files(work, {"app.py": CODE, "big.py": CODE, "lib.py": CODE})
    base = commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "feature")
    changed = CODE.replace("value_5 = 5", "value_5 = 'five'")
    write_files(work, {"app.py": changed, "big.py": changed, "lib.py": changed})
    head = commit_all(work, "head")
    bare = tmp_path / "refusals.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        OWNER, REPO, NUMBER, bare_repo_path=bare, base_sha=base, head_sha=head
    )
    fake_github.set_pull_state(OWNER, REPO, NUMBER, too_large=frozenset({"big.py"}))
    return work, bare, head


def _payload() -> ReviewPayload:
    return ReviewPayload(
        event="COMMENT",
        body=f"### prflow review\n\n{MARKER}",
        comments=[
            ReviewComment(path=path, line=6, side="RIGHT", body=f"about {path}")
            for path in ("app.py", "big.py", "lib.py")
        ],
    )


def _post_it(head: str) -> PostedReview:
    inp = PostReviewInput(pr=PR, commit_sha=head, review_key="unused", run_marker=MARKER)
    return _post(inp, _payload())


def _assert_moved_one(fake: FakeGitHub, posted: PostedReview) -> None:
    (review,) = fake.reviews(OWNER, REPO, NUMBER)
    assert posted.moved_to_body == 1 and posted.inline_comments == 2
    assert not posted.inline_refused
    assert "1 inline comment GitHub refused" in review.body
    assert "`big.py:6`" in review.body and "about big.py" in review.body
    inline = sorted(c.placed.path for c in fake.review_comments(OWNER, REPO, NUMBER))
    assert inline == ["app.py", "lib.py"]


def test_a_comment_githubs_own_diff_does_not_show_goes_to_the_body_before_posting(
    pr: tuple[Path, Path, str], fake_github: FakeGitHub
) -> None:
    _, _, head = pr
    posted = _post_it(head)
    assert [r.status for r in fake_github.requests("POST", r"/pulls/9/reviews$")] == [200]
    _assert_moved_one(fake_github, posted)


def test_a_422_for_one_comment_resends_the_review_without_it_once(
    pr: tuple[Path, Path, str], fake_github: FakeGitHub
) -> None:
    work, bare, head = pr
    # A push after the review was made: GitHub's file list is of a newer head, so it cannot
    # be checked line by line in advance; GitHub answers 422 for the too-large file.
    write_files(work, {"other.py": "x = 1\n"})
    newer = commit_all(work, "later push")
    git(work, "push", "-q", str(bare), "feature")
    fake_github.push_to_pull(OWNER, REPO, NUMBER, newer)

    posted = _post_it(head)

    statuses = [r.status for r in fake_github.requests("POST", r"/pulls/9/reviews$")]
    assert statuses == [422, 200]
    _assert_moved_one(fake_github, posted)


def test_every_comment_refused_leaves_a_review_with_all_of_them_in_the_body(
    pr: tuple[Path, Path, str], fake_github: FakeGitHub
) -> None:
    work, bare, head = pr
    write_files(work, {"other.py": "x = 1\n"})
    newer = commit_all(work, "later push")
    git(work, "push", "-q", str(bare), "feature")
    fake_github.set_pull_state(
        OWNER, REPO, NUMBER, too_large=frozenset({"big.py", "app.py", "lib.py"})
    )
    fake_github.push_to_pull(OWNER, REPO, NUMBER, newer)
    posted = _post_it(head)
    statuses = [r.status for r in fake_github.requests("POST", r"/pulls/9/reviews$")]
    assert statuses == [422, 200]  # all three identified from GitHub's files, moved at once
    assert posted.moved_to_body == 3 and posted.inline_comments == 0
    (review,) = fake_github.reviews(OWNER, REPO, NUMBER)
    assert all(f"`{p}:6`" in review.body for p in ("app.py", "big.py", "lib.py"))
