"""The impact report as one PR comment, found again later by its HTML marker.

GitHub rejects comments over 65,536 characters, so a report that does not fit
loses whole detail sections (each replaced by a one-line note), then rows,
and never gets cut in the middle of a table.
"""

from __future__ import annotations

from prflow.impact.models import ImpactReport
from prflow.impact.render.markdown import DEFAULT_MAX_ROWS, render_markdown

IMPACT_COMMENT_MARKER = "<!-- prflow:impact -->"
GITHUB_COMMENT_LIMIT = 65_536

# Least useful in a review conversation first; the summary and risk factors stay.
DROP_ORDER = (
    "files",
    "impact_graph",
    "config",
    "stale_docs",
    "test_gaps",
    "recommendations",
    "findings",
    "breaking",
)
ROW_LIMITS = (DEFAULT_MAX_ROWS, 20, 5)
OMITTED_NOTE = (
    "Omitted to fit GitHub's comment size limit; the full report is in the "
    "Markdown or JSON output of `prflow impact`."
)

CUT_NOTE = (
    "The remaining sections were cut to fit GitHub's comment size limit; the full report is "
    "in the Markdown or JSON output of `prflow impact`."
)


def render_pr_comment(report: ImpactReport, *, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """The marker plus the Markdown report, within ``limit`` characters."""
    for max_rows in ROW_LIMITS:
        for dropped in range(len(DROP_ORDER) + 1):
            body = render_markdown(
                report, max_rows=max_rows, omit=DROP_ORDER[:dropped], omitted_note=OMITTED_NOTE
            )
            comment = _with_marker(body)
            if len(comment) <= limit:
                return comment
    return _cut_at_section(comment, limit)


def _with_marker(body: str) -> str:
    # A marker quoted inside model text must not make another comment look like ours.
    return f"{IMPACT_COMMENT_MARKER}\n{body.replace(IMPACT_COMMENT_MARKER, '')}"


def _cut_at_section(comment: str, limit: int) -> str:
    """Last resort: keep whole sections up to the limit (a section boundary is never in a table)."""
    note = f"\n\n_{CUT_NOTE}_\n"
    budget = limit - len(note)
    cut = comment.rfind("\n## ", 0, budget)
    if cut <= 0:
        cut = comment.rfind("\n\n", 0, budget)
    return comment[: max(cut, len(IMPACT_COMMENT_MARKER))] + note
