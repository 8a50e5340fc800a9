"""Paths as git writes them: a file whose name git C-quotes gets inline comments at its real
path, and a renamed file reaches its reviewer as the rename's diff, not as a new file."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.github.reviews import _post
from activities.review import _both_paths
from prflow.git.repo import GitRepoReader, open_local
from prflow.pr_identifier import PullRequestRef
from prflow.review.diff_map import DiffIndex, place
from prflow.review.models import (
    FindingCategory,
    FindingSource,
    IntakeResult,
    PrMetadata,
    ReviewFinding,
)
from prflow.review.render.github_review import ReviewComment, ReviewPayload
from prflow.review.stage_models import PostReviewInput, ReviewFacts
from tests.support.fake_github import FakeGitHub
from tests.support.sample_repos import commit_all, git, init_repo, write_files

OWNER, REPO, NUMBER = "octo-org", "names", 4
NAMES = ["sp ace.py", 'q"uote.py', "back\\slash.py", "ta\tb.py", "café.py", "日本/名前.py"]
BODY = "".join(f"line_{i} = {i}\n" for i in range(30))
INIT = "".join(f"setting_{i} = {i}\n" for i in range(180))


def _finding(path: str, line: int) -> ReviewFinding:
    return ReviewFinding(
        file=path,
        line_start=line,
        line_end=line,
        severity="suggestion",
        category=FindingCategory.maintainability,
        title="t",
        body="b",
        confidence=0.9,
        dimension_id="d",
        dimension_name="D",
        source=FindingSource.reviewer,
    )


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    work = init_repo(tmp_path / "work")
    write_files(work, {**{name: BODY for name in NAMES}, "requests/__init__.py": INIT})
    base = commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "feature")
    changed = BODY.replace("line_12 = 12", "line_12 = 'twelve'")
    write_files(
        work,
        {
            **{name: changed for name in NAMES},
            "requests/__init__.py": None,
            "src/requests/__init__.py": INIT.replace("setting_90 = 90", "setting_90 = 'x'"),
        },
    )
    head = commit_all(work, "head")
    bare = tmp_path / "names.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    return bare, base, head


def test_quoted_names_get_inline_comments_at_their_real_path(
    repo: tuple[Path, str, str], fake_github: FakeGitHub
) -> None:
    bare, base, head = repo
    fake_github.add_pull_request(
        OWNER, REPO, NUMBER, bare_repo_path=bare, base_sha=base, head_sha=head
    )
    index = DiffIndex.from_patch(GitRepoReader(open_local(str(bare))).diff(base, head))
    placements = [place(_finding(name, 13), index) for name in NAMES]
    assert [p.path for p in placements if p.inline] == NAMES, [p.reason for p in placements]
    comments = [
        ReviewComment(path=p.path, line=p.line or 0, side="RIGHT", body="c") for p in placements
    ]
    posted = _post(
        PostReviewInput(
            pr=PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER),
            commit_sha=head,
            review_key="unused",
            run_marker="<!-- m -->",
        ),
        ReviewPayload(event="COMMENT", body="r <!-- m -->", comments=comments),
    )
    assert posted.inline_comments == len(NAMES) and not posted.inline_refused
    placed = sorted(c.placed.path for c in fake_github.review_comments(OWNER, REPO, NUMBER))
    assert placed == sorted(NAMES)


def test_a_renamed_file_reaches_its_reviewer_as_the_renames_diff(
    repo: tuple[Path, str, str],
) -> None:
    bare, base, head = repo
    reader = GitRepoReader(open_local(str(bare)))
    renamed = {f.path: f.old_path for f in reader.changed_files(base, head) if f.old_path}
    assert renamed == {"src/requests/__init__.py": "requests/__init__.py"}
    facts = ReviewFacts(
        metadata=PrMetadata(),
        reviewable=["src/requests/__init__.py"],
        not_reviewed=[],
        code_intake=IntakeResult(),
        known_paths=[],
        renamed_from=renamed,
    )
    diff = reader.diff(base, head, _both_paths(facts, "src/requests/__init__.py"))
    assert "rename from requests/__init__.py" in diff
    assert sum(1 for line in diff.split("\n") if line.startswith("+")) == 2  # +++ and one line
    alone = reader.diff(base, head, ["src/requests/__init__.py"])
    assert "new file mode" in alone  # what reviewers were sent before
