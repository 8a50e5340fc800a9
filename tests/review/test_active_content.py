"""Model text that cannot become active content: raw HTML escaped and non-http(s) link
targets dropped in everything model-written that prflow posts, checked in what the stateful
GitHub server stores (the review, its inline comments, the sticky summary)."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from activities.github import upsert_pr_comment
from activities.github.reviews import _post
from prflow.github_models import CommentUpsertInput
from prflow.pr_identifier import PullRequestRef
from prflow.render.active_content import inactive
from prflow.render.markdown_text import model_cell, model_line, model_quote
from prflow.review.render.github_review import review_payload
from prflow.review.render.markdown import render_review_markdown
from prflow.review.render.summary import REVIEW_COMMENT_MARKER, ReviewState, summary_comment
from prflow.review.stage_models import PostReviewInput
from prflow.store.blobs import put_text
from tests.review.report_factory import make_report, scored
from tests.support.fake_github import FakeGitHub
from tests.support.sample_repos import commit_all, git, init_repo, write_files

PR = PullRequestRef(owner="acme", repo="api", number=7)
IMG = '<img src=x onerror="alert(document.cookie)">'
HOSTILE = [
    IMG,
    "[click me](javascript:alert(1))",
    "![pixel](data:image/svg+xml;base64,PHN2Zz4=)",
    "[entity](JaVaScRiPt&#58;alert(1))",
    "<details open><summary>x</summary>y</details>",
    "<a href='vbscript:msgbox(1)'>a</a>",
    "[ref]: javascript:alert(2)",
]
# What would render as HTML or as a link that runs code or loads data.
ACTIVE = ["<img", "<a ", "<details open", "(javascript:", "(JaVaScRiPt", "(data:", "]: javascript"]


def _active(text: str) -> list[str]:
    return [needle for needle in ACTIVE if needle in text]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_each_form_is_made_inactive_and_code_stays_as_written(hostile: str) -> None:
    assert _active(inactive(hostile)) == []
    for rendered in (model_quote(hostile), model_line(hostile), model_cell(hostile)):
        assert _active(rendered) == []
    assert inactive(f"`{IMG}`") == f"`{IMG}`"  # a code span renders as text already
    assert inactive("see [docs](https://example.com/a_(b))") == (
        "see [docs](https://example.com/a_(b))"
    )


@pytest.fixture
def pr(tmp_path: Path, fake_github: FakeGitHub) -> str:
    work = init_repo(tmp_path / "work")
    write_files(work, {"app/x.py": "x = 1\ny = 2\n"})
    base = commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "feature")
    write_files(work, {"app/x.py": "x = 10\ny = 2\n"})
    head = commit_all(work, "head")
    bare = tmp_path / "api.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    fake_github.add_pull_request(
        PR.owner, PR.repo, PR.number, bare_repo_path=bare, base_sha=base, head_sha=head
    )
    return head


async def test_nothing_model_written_reaches_github_as_html_or_a_script_link(
    pr: str, fake_github: FakeGitHub, github_blob_db: str
) -> None:
    body = "\n\n".join(HOSTILE)
    findings = [
        scored(f"inline {IMG}", number=1, body=body),
        scored("[off](javascript:alert(3)) diff", number=2, inline=False, body=body),
    ]
    report = make_report(findings, head_sha=pr, verdict_reason=None)
    marker = "<!-- prflow:review-run active@x -->"
    payload = review_payload(report, marker)
    _post(PostReviewInput(pr=PR, commit_sha=pr, review_key="k", run_marker=marker), payload)
    key = put_text(github_blob_db, summary_comment(report, ReviewState(head=pr, posted=[])))
    await ActivityEnvironment().run(
        upsert_pr_comment, CommentUpsertInput(pr=PR, marker=REVIEW_COMMENT_MARKER, body_key=key)
    )

    (review,) = fake_github.reviews(PR.owner, PR.repo, PR.number)
    (inline,) = fake_github.review_comments(PR.owner, PR.repo, PR.number)
    (summary,) = fake_github.comments(PR.owner, PR.repo, PR.number)
    for text in (review.body, inline.body, summary.body, render_review_markdown(report)):
        assert _active(text) == [], text
    assert "&lt;img" in inline.body and "click me" in inline.body  # shown, not run
