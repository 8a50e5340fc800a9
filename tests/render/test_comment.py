"""The PR comment starts with its marker and always fits GitHub's size limit."""

from __future__ import annotations

from prflow.analysis.findings import ImpactGraph
from prflow.changes import ChangedFile, FileStatus
from prflow.impact.render.comment import (
    CUT_NOTE,
    GITHUB_COMMENT_LIMIT,
    IMPACT_COMMENT_MARKER,
    render_pr_comment,
)
from prflow.impact.render.markdown import render_markdown
from tests.render.report_factory import llm_outcome, make_report


def huge_report_files(count: int) -> list[ChangedFile]:
    return [
        ChangedFile(path=f"packages/{'x' * 200}/module_{index}.py", status=FileStatus.modified)
        for index in range(count)
    ]


def assert_tables_intact(comment: str) -> None:
    """Every table row is complete: starts and ends with a pipe, same column count as its header."""
    lines = comment.splitlines()
    columns = None
    for line in lines:
        if line.startswith("|"):
            assert line.endswith("|"), line
            count = line.replace("\\|", "").count("|")
            columns = columns or count
            assert count == columns, line
        else:
            columns = None


def test_small_report_is_the_marker_plus_the_full_markdown() -> None:
    report = make_report()
    comment = render_pr_comment(report)
    assert comment == f"{IMPACT_COMMENT_MARKER}\n{render_markdown(report)}"


def test_oversized_report_drops_detail_sections_with_a_note() -> None:
    report = make_report(changed_files=huge_report_files(3000))
    assert len(render_markdown(report, max_rows=10_000)) > GITHUB_COMMENT_LIMIT
    comment = render_pr_comment(report, limit=6_000)
    assert len(comment) <= 6_000
    assert comment.startswith(IMPACT_COMMENT_MARKER + "\n")
    assert "**Risk Score**:" in comment
    assert "## Risk Factor Breakdown" in comment
    assert "Omitted to fit GitHub's comment size limit" in comment
    assert_tables_intact(comment)


def test_default_limit_is_githubs() -> None:
    graph = ImpactGraph(indirectly_affected=[f"{'y' * 250}/{index}.py" for index in range(400)])
    report = make_report(changed_files=huge_report_files(400), impact_graph=graph)
    comment = render_pr_comment(report)
    assert len(comment) <= GITHUB_COMMENT_LIMIT
    assert_tables_intact(comment)


def test_a_marker_quoted_by_the_model_cannot_duplicate_ours() -> None:
    outcome = llm_outcome().model_copy(
        update={"recommendations": [f"Look for {IMPACT_COMMENT_MARKER} in old comments"]}
    )
    comment = render_pr_comment(make_report(llm=outcome))
    assert comment.count(IMPACT_COMMENT_MARKER) == 1


def test_last_resort_cut_keeps_whole_sections() -> None:
    comment = render_pr_comment(make_report(), limit=900)
    assert len(comment) <= 900
    assert comment.startswith(IMPACT_COMMENT_MARKER)
    assert comment.rstrip().endswith(f"_{CUT_NOTE}_")
    assert "remaining sections were cut" in CUT_NOTE
    assert_tables_intact(comment)
