"""Reviews that stay readable at scale: a change touching 3,000 files. One rule's findings
fold into one (a count and the first files), inline comments stop at the cap with the rest
counted in the body, unreviewed files are grouped by reason, and the report says what was
folded; posted to the stateful GitHub server, which accepts it as one review."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.github.reviews import _post
from prflow.analysis.findings import StaleDocRef, StaleReason
from prflow.analysis.findings import TestGap as Gap
from prflow.git.repo import GitRepoReader, open_local
from prflow.impact.stage_inputs import StaticFindings
from prflow.pr_identifier import PullRequestRef
from prflow.review.diff_map import DiffIndex
from prflow.review.models import FindingCategory, FindingSource, ReviewFinding
from prflow.review.render.github_review import (
    MAX_INLINE_COMMENTS,
    inline_cap_note,
    review_payload,
)
from prflow.review.render.summary import ReviewState, summary_comment
from prflow.review.reviewable import NotReviewed, SkipReason
from prflow.review.stage_models import PostReviewInput
from prflow.review.static_findings import static_review
from prflow.review.synthesis import SynthesisInputs, synthesize
from tests.review.report_factory import make_report
from tests.support.fake_github import FakeGitHub
from tests.support.sample_repos import commit_all, git, init_repo, write_files

FILES = 3_000
PR = PullRequestRef(owner="acme", repo="mono", number=11)
GITHUB_COMMENT_LIMIT = 65_536


@pytest.fixture
def big_pr(tmp_path: Path, fake_github: FakeGitHub) -> tuple[Path, str, str]:
    work = init_repo(tmp_path / "work")
    write_files(work, {f"pkg/m{i}.py": f"VALUE = {i}\n" for i in range(FILES)})
    base = commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "feature")
    write_files(work, {f"pkg/m{i}.py": f"VALUE = {i + 1}\n" for i in range(FILES)})
    head = commit_all(work, "bump every value")
    bare = tmp_path / "mono.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        PR.owner, PR.repo, PR.number, bare_repo_path=bare, base_sha=base, head_sha=head
    )
    return bare, base, head


def _model_finding(i: int) -> ReviewFinding:
    return ReviewFinding(
        file=f"pkg/m{i}.py",
        line_start=1,
        line_end=1,
        severity="important",
        category=FindingCategory.correctness,
        title=f"off by one in m{i}",
        body="b",
        confidence=0.9,
        dimension_id="d",
        dimension_name="D",
        source=FindingSource.reviewer,
        fingerprint=f"{i:016x}",
    )


def test_a_3000_file_change_reads_as_a_short_review(
    big_pr: tuple[Path, str, str], fake_github: FakeGitHub
) -> None:
    bare, base, head = big_pr
    static = StaticFindings(
        test_gaps=[
            Gap(
                source_file=f"pkg/m{i}.py",
                expected_tests=[f"tests/test_m{i}.py"],
                existing_tests=[],
                tests_updated=False,
            )
            for i in range(FILES)
        ],
        stale_docs=[
            StaleDocRef(
                doc_file="README.md",
                line=n,
                target=f"pkg/gone{n}.py",
                reason=StaleReason.deleted_path,
                excerpt=f"see pkg/gone{n}.py",
            )
            for n in range(1, 31)
        ],
    )
    part = static_review(static)
    assert len(part.findings) == 2, [f.title for f in part.findings]
    gaps = next(f for f in part.findings if "test updates" in f.title)
    assert "3,000 findings" in gaps.title and "`pkg/m0.py`" in gaps.body
    assert "and 2,995 more files" in gaps.body

    diff = DiffIndex.from_patch(GitRepoReader(open_local(str(bare))).diff(base, head))
    findings = [*part.findings, *(_model_finding(i) for i in range(80))]
    result = synthesize(findings, SynthesisInputs(), diff)
    report = make_report(
        result.findings,
        head_sha=head,
        folded=[*part.folded, *inline_cap_note(result.findings)],
        used_model=False,
        not_reviewed=[
            NotReviewed(path=f"pkg/m{i}.py", reason=SkipReason.static_mode) for i in range(FILES)
        ],
    )
    payload = review_payload(report, "<!-- prflow:review-run scale -->")
    assert len(payload.comments) == MAX_INLINE_COMMENTS
    assert "3,000 “Changed without test updates” findings folded into one" in payload.body
    assert "50 findings past the 30 inline comments listed in the body" in payload.body
    assert "- … and 2 more (" in payload.body  # 52 in the body: 50 listed, 2 counted

    posted = _post(
        PostReviewInput(pr=PR, commit_sha=head, review_key="k", run_marker="scale"), payload
    )
    assert posted.inline_comments == MAX_INLINE_COMMENTS and posted.moved_to_body == 0
    (review,) = fake_github.reviews(PR.owner, PR.repo, PR.number)
    assert len(review.body) < 20_000

    summary = summary_comment(report, ReviewState(head=head))
    assert len(summary) < GITHUB_COMMENT_LIMIT
    assert summary.count("no model ran") == 1  # one line for the reason, not 3,000
    assert "<summary>3000 files: no model ran" in summary
    assert "Folded to stay readable: 3,000" in summary
