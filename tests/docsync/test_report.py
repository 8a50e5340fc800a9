"""The doc sync report: model text marked in every rendering, the comment within GitHub's limit."""

from __future__ import annotations

from prflow.docsync.models import AffectedDoc, Bucket, Evidence, EvidenceKind, Thresholds
from prflow.docsync.report import DocEdit, DocsyncReport, render_comment, render_markdown
from prflow.docsync.run_models import DOCSYNC_COMMENT_MARKER, DocOutcome, DocStatus


def _report(docs: int = 2, diff_lines: int = 3) -> DocsyncReport:
    affected = [
        AffectedDoc(
            path=f"docs/d{i}.md",
            bucket=Bucket.must_update if i == 0 else Bucket.probably_fine,
            score=0.9 if i == 0 else 0.2,
            evidence=[
                Evidence(kind=EvidenceKind.mention, target="f", line=3, excerpt="f(x)", score=0.9)
            ],
        )
        for i in range(docs)
    ]
    diff = "diff --git a/docs/d0.md b/docs/d0.md\n" + "+line\n" * diff_lines
    return DocsyncReport(
        workflow_id="docsync:r",
        repo="/r",
        base_ref="main",
        head_ref="feature",
        base_sha="a" * 40,
        head_sha="b" * 40,
        thresholds=Thresholds(),
        docs_scanned=docs,
        docs=affected,
        outcomes=[
            DocOutcome(path="docs/d0.md", status=DocStatus.edited, edits=1, model_text=True),
            DocOutcome(
                path="docs/d1.md",
                status=DocStatus.unchanged,
                reason="Nothing names f there. <!-- prflow:docsync -->",
                model_text=True,
            ),
        ],
        edits=[DocEdit(path="docs/d0.md", edit_index=0, reason="f takes x now", diff=diff)],
    )


def test_model_text_is_marked_and_the_run_is_named() -> None:
    text = render_markdown(_report())
    assert "1. Reason _(model text)_: f takes x now" in text
    assert "> Nothing names f there. <!-- prflow:docsync --> _(model text)_" in text
    assert "prflow docsync --show 'docsync:r'" in text
    assert "| `docs/d0.md` | 0.90 | line 3: target `f`: f(x) |" in text


def test_the_comment_has_one_marker_and_fits_the_limit() -> None:
    comment = render_comment(_report())
    assert comment.startswith(DOCSYNC_COMMENT_MARKER)
    assert comment.count(DOCSYNC_COMMENT_MARKER) == 1  # model text cannot forge a second one
    big = _report(docs=400, diff_lines=4000)
    short = render_comment(big, limit=20_000)
    assert len(short) <= 20_000
    assert "## Probably fine" not in short  # dropped first
    assert "f takes x now" in short  # the reasons stay
