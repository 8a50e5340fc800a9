"""A review of a pull request places its findings on GitHub's own per-file patches, before
posting: a line the runner's git shows but GitHub's diff does not, or a file GitHub shows no
diff of (too large), goes to the body with its ``path:line``; GitHub never answers 422.

The stateful GitHub server here computes its diff of the PR with one line of context (a
GitHub whose diff differs from the runner's pinned ``git diff -U3``), lists those patches in
``GET /pulls/{n}/files`` and enforces its rule on them; ``shop/pricing.py`` is too large for
it to show.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import Client

from activities.github.pull_files import pull_patches_of
from prflow.config import Settings, cached_settings
from prflow.git.repo import GitRepoReader, open_local
from prflow.pr_identifier import PullRequestRef
from prflow.review.diff_map import DiffIndex, place
from prflow.review.github_diff import placement_index
from prflow.review.models import DiffSide, FindingCategory, FindingSource, ReviewFinding
from prflow.review.pull_patches import files_from_json
from prflow.review.render.github_review import review_payload
from prflow.review.report import ReviewReport
from prflow.store.blobs import get_json, get_text
from tests.review.report_factory import make_report
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    ADVERSARY,
    ANATOMY,
    CART,
    COVERAGE,
    CROSS_REF,
    DISCOUNT_INT,
    INTAKE,
    PLANNER,
    TOTAL_NEEDS_TAX,
    dimension_key,
    every_pass,
    finding,
    review_request,
    start_review,
    submit,
)
from tests.support.sample_repos import build_sample_repo, commit_all, git, init_repo, write_files
from tests.support.scripted_anthropic import ScriptedAnthropic, Turn

OWNER, REPO, NUMBER = "octo-org", "shop", 11
PR = PullRequestRef(owner=OWNER, repo=REPO, number=NUMBER)
MARKER = "<!-- prflow:review-run placement -->"
ADD_UNGUARDED = finding(
    "shop/cart.py",
    5,
    "def add(self, price: float) -> None:",
    "add() accepts negative prices",
    category="maintainability",
)


@pytest.fixture
def pr_repos(tmp_path: Path, fake_github: FakeGitHub) -> tuple[Path, Path]:
    work = build_sample_repo(tmp_path / "work")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        OWNER,
        REPO,
        NUMBER,
        bare_repo_path=bare,
        base_sha=git(work, "rev-parse", "main"),
        head_sha=git(work, "rev-parse", "feature"),
    )
    fake_github.set_pull_state(
        OWNER, REPO, NUMBER, diff_options=("-U1",), too_large=frozenset({"shop/pricing.py"})
    )
    return work, bare


def _script() -> dict[str, list[Turn]]:
    return {
        INTAKE: [submit("submit_intake", pr_type="refactor", complexity="standard",
                        areas_touched=["shop"], risk_signals=[], confident=True)],
        ANATOMY: [submit("submit_anatomy", narrative="Reshapes the cart.", risk_surfaces=[],
                         unrelated_changes=[], intent_gaps=[])],
        PLANNER: [submit("submit_review_plan", cross_ref_hints=[], dimensions=[
            {"name": CART, "prompt": "Check the cart and pricing.",
             "target_files": ["shop/cart.py", "shop/pricing.py", "shop/__init__.py",
                              "web/src/api.ts", "web/src/index.ts", ".github/workflows/ci.yml"],
             "priority": 1}])],
        dimension_key(CART): [
            submit("submit_findings", findings=[TOTAL_NEEDS_TAX, ADD_UNGUARDED, DISCOUNT_INT])
        ],
        ADVERSARY: every_pass(submit("submit_challenges", verdicts=[], missed=[])),
        CROSS_REF: every_pass(submit("submit_interactions", compounds=[], deep_dives=[])),
        COVERAGE: [submit("submit_coverage", complete=True, gaps=[])],
    }  # fmt: skip


@pytest.mark.temporal
async def test_findings_off_githubs_diff_go_to_the_body_before_posting(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    fake_github: FakeGitHub,
    pr_repos: tuple[Path, Path],
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    work, bare = pr_repos
    # The runner's pinned diff shows cart.py line 5 and pricing.py; GitHub's does not.
    local = DiffIndex.from_patch(
        GitRepoReader(open_local(str(bare))).diff(
            git(work, "rev-parse", "main"), git(work, "rev-parse", "feature")
        )
    )
    cart, pricing = local.files["shop/cart.py"], local.files["shop/pricing.py"]
    assert cart.hunk_of(5, DiffSide.right) is not None and pricing.hunks

    scripted_anthropic.route(_script())
    request = review_request(temporal_settings, pull_request=PR, post=True)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-gh-diff")
        result = await asyncio.wait_for(handle.result(), 180)

    assert not [r for r in fake_github.exchanges if r.status == 422], "GitHub refused nothing"
    assert [r.status for r in fake_github.requests("POST", rf"/pulls/{NUMBER}/reviews$")] == [200]
    assert fake_github.requests("GET", rf"/pulls/{NUMBER}/files")
    (review,) = fake_github.reviews(OWNER, REPO, NUMBER)
    inline = fake_github.review_comments(OWNER, REPO, NUMBER)
    tax = [c for c in inline if "total() lost its tax default" in c.body]
    assert [(c.placed.path, c.placed.line) for c in tax] == [("shop/cart.py", 9)]
    assert not [c for c in inline if "negative prices" in c.body or "truncates" in c.body]
    assert len(inline) == result.inline_comments
    assert "#### Findings not on a diff line" in review.body
    assert "`shop/cart.py:5`" in review.body
    assert "line 5 is outside the diff of shop/cart.py" in review.body
    assert "`shop/pricing.py:1`" in review.body
    assert "GitHub shows no diff of shop/pricing.py" in review.body
    assert "GitHub refused" not in review.body, "placed before posting, not moved after"

    db = cached_settings().resolved_database_url()
    report = ReviewReport.model_validate_json(get_text(db, result.report_key))
    assert report.placement_note == "", "GitHub's list was complete: its patches decided alone"
    placed = {(f.file, f.line_start, f.placement.inline) for f in report.findings}
    assert {("shop/cart.py", 9, True), ("shop/cart.py", 8, True)} <= placed  # 8: static
    assert {("shop/cart.py", 5, False), ("shop/pricing.py", 1, False)} <= placed
    assert sum(f.placement.inline for f in report.findings) == result.inline_comments
    assert report.complete


def test_files_past_githubs_3000_file_list_are_placed_on_the_local_diff_and_it_says_so(
    tmp_path: Path, fake_github: FakeGitHub, github_blob_db: str
) -> None:
    """GitHub lists 3,000 files of a PR at most: the one past that is placed on the pinned
    local diff (and goes inline), every listed one on GitHub's patch; the review says so."""
    work = init_repo(tmp_path / "work")
    names = [f"m/f{i:04}.py" for i in range(3_001)]
    write_files(work, dict.fromkeys(names, "a = 1\nb = 1\n"))
    base = commit_all(work, "base")
    write_files(work, dict.fromkeys(names, "a = 2\nb = 1\n"))
    head = commit_all(work, "head")
    bare = tmp_path / "many.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        OWNER, "many", 2, bare_repo_path=bare, base_sha=base, head_sha=head
    )
    fake_github.set_pull_state(OWNER, "many", 2, diff_options=("-U0",))  # GitHub: line 1 only

    patches = pull_patches_of(PullRequestRef(owner=OWNER, repo="many", number=2))

    assert (patches.listed, patches.changed_files, patches.head_sha) == (3_000, 3_001, head)
    assert not patches.complete
    assert len(fake_github.requests("GET", r"/pulls/2/files")) == 30, "pages of 100"
    local = DiffIndex.from_patch(GitRepoReader(open_local(str(bare))).diff(base, head))
    files = files_from_json(get_json(github_blob_db, patches.key))
    index, note = placement_index(local, files, complete=patches.complete)
    assert place(_finding(names[0], 2), index).reason.startswith("line 2 is outside the diff")
    assert place(_finding(names[-1], 2), index).inline, "past GitHub's list: the local diff"
    assert note.endswith("1 file past that was placed on the local diff (pinned git options)")
    body = review_payload(make_report([], placement_note=note), MARKER).body
    assert "Comment placement: GitHub lists only the first 3,000 files" in body


def _finding(path: str, line: int) -> ReviewFinding:
    return ReviewFinding(
        file=path,
        line_start=line,
        line_end=line,
        severity="important",
        category=FindingCategory.correctness,
        title="t",
        body="b",
        confidence=0.9,
        dimension_id="d1",
        dimension_name="D",
        source=FindingSource.reviewer,
    )
