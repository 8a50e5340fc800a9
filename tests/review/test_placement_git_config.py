"""Placement follows GitHub's diff, not the user's git config.

GitHub accepts an inline comment only on a line inside one hunk of the PR's own
diff (three lines of context, git's default algorithm, renames detected). A
user's ``~/.gitconfig`` that changes what ``git diff`` prints must not change
where prflow puts a comment: for each such setting, prflow's diff map equals
the diff the stateful GitHub server computes (with no user config), and a review
with a comment on the first and last line of every hunk is accepted whole.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from activities.github.reviews import _post
from prflow.git.repo import GitRepoReader, open_local
from prflow.pr_identifier import PullRequestRef
from prflow.review.diff_map import DiffIndex, place
from prflow.review.models import DiffSide, FindingCategory, FindingSource, ReviewFinding
from prflow.review.render.github_review import ReviewComment, ReviewPayload
from prflow.review.stage_models import PostReviewInput
from tests.support.fake_github import FakeGitHub
from tests.support.fake_github_reviews import pull_diff
from tests.support.sample_repos import commit_all, git, init_repo, write_files

OWNER, REPO, NUMBER = "octo-org", "placement", 3
CALC = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(14))
# Found by search: myers and histogram cut these into different hunks; so do the indent
# heuristic on and off for SLIDE_*.
BRACES_BASE = "{\n}\ny\n}\nz\n{\n}\ny\ny\ny\n{\nz\nz\n{\ny\nx\ny\n"
BRACES_HEAD = "{\n}\n}\n{\n}\ny\ny\ny\n{\nz\nz\nz\n{\ny\nx\ny\n"
SLIDE_BASE = (
    "def f():\ndef f():\n    return 1\n    pass\ndef f():\n\n    return 1\n    pass\n\n"
    "def f():\n    pass\n    return 1\ndef f():\n\n\n    pass\ndef f():\n    pass\n"
)
SLIDE_HEAD = SLIDE_BASE.replace("\n\n\n    pass\n", "\n\n\n    pass\n\ndef g():\n    pass\n")
NUMBERS = "".join(f"value_{i} = {i}\n" for i in range(40))
ITEMS = "".join(f"item_{i} = {i}\n" for i in range(40))
BLANKS = "a = 1\n\nb = 2\n\nc = 3\n\nd = 4\n"


@dataclass(frozen=True)
class Setting:
    name: str
    gitconfig: str = ""
    env: tuple[tuple[str, str], ...] = ()
    changes_git_diff: bool = True  # plain `git diff` prints something else under it


SETTINGS = [
    Setting("diff.context=5", "[diff]\n\tcontext = 5\n"),
    Setting("diff.algorithm=histogram", "[diff]\n\talgorithm = histogram\n"),
    Setting("diff.renames=false", "[diff]\n\trenames = false\n"),
    Setting("diff.renames=copies", "[diff]\n\trenames = copies\n"),
    Setting("diff.external", "[diff]\n\texternal = {external}\n"),
    Setting("color.ui=always", "[color]\n\tui = always\n"),
    Setting("diff.indentHeuristic=false", "[diff]\n\tindentHeuristic = false\n"),
    Setting("diff.noprefix", "[diff]\n\tnoprefix = true\n"),
    # For two commits git already writes a/ and b/; kept to pin that it stays so.
    Setting("diff.mnemonicPrefix", "[diff]\n\tmnemonicPrefix = true\n", changes_git_diff=False),
    Setting("diff.interHunkContext=20", "[diff]\n\tinterHunkContext = 20\n"),
    Setting("diff.suppressBlankEmpty", "[diff]\n\tsuppressBlankEmpty = true\n"),
    Setting("GIT_DIFF_OPTS=-u5", env=(("GIT_DIFF_OPTS", "-u5"),)),
]


@pytest.fixture
def pr(tmp_path: Path, fake_github: FakeGitHub) -> tuple[Path, str, str]:
    work = init_repo(tmp_path / "work")
    write_files(
        work,
        {
            "calc.py": CALC,
            "braces.txt": BRACES_BASE,
            "slide.py": SLIDE_BASE,
            "numbers.py": NUMBERS,
            "items.py": ITEMS,
            "blanks.py": BLANKS,
        },
    )
    base = commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "feature")
    calc = CALC.replace("return x + 3\n", "return x * 3\n").replace(
        "return x + 9\n", "return x * 9\n"
    )
    write_files(
        work,
        {
            "calc.py": calc,
            "braces.txt": BRACES_HEAD,
            "slide.py": SLIDE_HEAD,
            "numbers.py": None,  # renamed with one line changed
            "src/numbers.py": NUMBERS.replace("value_20 = 20", "value_20 = 'twenty'"),
            "items.py": ITEMS.replace("item_5 = 5", "item_5 = 'five'"),
            "items_copy.py": ITEMS.replace("item_30 = 30", "item_30 = 'copy'"),
            "blanks.py": BLANKS.replace("b = 2", "b = 22"),
        },
    )
    head = commit_all(work, "head")
    bare = tmp_path / "placement.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        OWNER, REPO, NUMBER, bare_repo_path=bare, base_sha=base, head_sha=head
    )
    return bare, base, head


def _user_config(setting: Setting, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir()
    external = home / "external-diff"
    external.write_text("#!/bin/sh\necho 'an external diff tool wrote this'\n")
    external.chmod(0o755)
    (home / ".gitconfig").write_text(setting.gitconfig.format(external=external))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIFF_OPTS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in setting.env:
        monkeypatch.setenv(name, value)


def _plain_diff(bare: Path, base: str, head: str, isolated: bool) -> str:
    env = dict(os.environ)
    if isolated:
        env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
        env.pop("GIT_DIFF_OPTS", None)
    return subprocess.run(
        ["git", "--git-dir", str(bare), "diff", base, head],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout


def _finding(path: str, start: int, end: int, side: DiffSide) -> ReviewFinding:
    return ReviewFinding(
        file=path,
        line_start=start,
        line_end=end,
        side=side,
        severity="suggestion",
        category=FindingCategory.maintainability,
        title=f"{path}:{start}-{end}",
        body="b",
        confidence=0.9,
        dimension_id="d",
        dimension_name="D",
        source=FindingSource.reviewer,
    )


@pytest.mark.parametrize("setting", SETTINGS, ids=[s.name for s in SETTINGS])
def test_comments_land_on_githubs_diff_whatever_the_users_git_config(
    setting: Setting,
    pr: tuple[Path, str, str],
    fake_github: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bare, base, head = pr
    _user_config(setting, tmp_path / "home", monkeypatch)
    if setting.changes_git_diff:  # the setting is live: plain git prints another diff
        assert _plain_diff(bare, base, head, False) != _plain_diff(bare, base, head, True)

    ours = DiffIndex.from_patch(GitRepoReader(open_local(str(bare))).diff(base, head))
    github = pull_diff(bare, base, head)
    assert {p: [(set(h.right), set(h.left)) for h in f.hunks] for p, f in ours.files.items()} == {
        p: [(h["RIGHT"], h["LEFT"]) for h in f.hunks] for p, f in github.items()
    }

    findings = [
        _finding(path, min(lines), max(lines), side)
        for path, file in ours.files.items()
        for hunk in file.hunks
        for side, lines in ((DiffSide.right, hunk.right), (DiffSide.left, hunk.left))
        if lines
    ]
    placements = [place(f, ours) for f in findings]
    assert all(p.inline for p in placements)
    comments = [
        ReviewComment(
            path=p.path,
            line=p.line or 0,
            side=p.side.value,
            start_line=p.start_line,
            start_side=p.side.value if p.start_line else None,
            body=f"comment {i}",
        )
        for i, p in enumerate(placements)
    ]
    posted = _post(
        PostReviewInput(
            pr=PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER),
            commit_sha=head,
            review_key="unused",
            run_marker="<!-- prflow:review-run test -->",
        ),
        ReviewPayload(
            event="COMMENT", body="review <!-- prflow:review-run test -->", comments=comments
        ),
    )
    assert [r.status for r in fake_github.requests("POST", r"/pulls/3/reviews$")] == [200]
    assert posted.inline_comments == len(comments) >= 14 and not posted.inline_refused
    paths = {c.placed.path for c in fake_github.review_comments(OWNER, REPO, NUMBER)}
    assert {"src/numbers.py", "items_copy.py", "calc.py", "braces.txt", "slide.py"} <= paths
