"""The impact report as GitHub-flavoured Markdown, from the package template.

The template only lays out sections; this module decides what each cell says
and makes every value safe inside a table (pipes, newlines, HTML, backticks).
Long lists are capped so a 2,000-file PR still yields a readable report.

Model-written prose (summary, recommendations, finding text) is labelled as
such and rendered inert: quoted, with headings, HTML, tables and images
escaped, so it can never pass for a section of the report or its verdict.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache
from importlib.resources import files
from typing import Any, TypeVar

import jinja2

from prflow.analysis.categories import CONFIG_TIER_LABEL
from prflow.analysis.findings import BreakingChange, BreakingKind, StaleReason
from prflow.impact.models import ImpactReport, LlmStatus
from prflow.render.active_content import drop_unsafe_links
from prflow.severity import Severity

TEMPLATE_NAME = "impact_report.md.j2"
DEFAULT_MAX_ROWS = 50
MAX_CELL_CHARS = 300

SECTIONS = (
    "files",
    "breaking",
    "test_gaps",
    "stale_docs",
    "impact_graph",
    "config",
    "risk_factors",
    "findings",
    "recommendations",
)
"""Section ids after the summary, in report order; callers may omit any of them."""

KIND_LABEL: dict[BreakingKind, str] = {
    BreakingKind.removed_export: "removed export",
    BreakingKind.renamed_export: "renamed export",
    BreakingKind.changed_signature: "changed signature",
    BreakingKind.changed_type: "changed type",
}

STALE_REASON_LABEL: dict[StaleReason, str] = {
    StaleReason.removed_symbol: "names a removed symbol",
    StaleReason.renamed_symbol: "names a renamed symbol",
    StaleReason.deleted_path: "names a deleted path",
    StaleReason.renamed_path: "names a moved path",
}

SEVERITY_ORDER: dict[Severity, int] = {Severity.high: 0, Severity.medium: 1, Severity.low: 2}

T = TypeVar("T")


def render_markdown(
    report: ImpactReport,
    *,
    max_rows: int = DEFAULT_MAX_ROWS,
    omit: Collection[str] = (),
    omitted_note: str = "Omitted from this view.",
) -> str:
    """Render the full report; ``omit`` replaces the named sections with ``omitted_note``."""
    unknown = set(omit) - set(SECTIONS)
    if unknown:
        raise ValueError(f"unknown report sections: {sorted(unknown)}")
    text = _template().render(
        report=report,
        max_rows=max_rows,
        omit=frozenset(omit),
        omitted_note=omitted_note,
        breaking=sorted(report.breaking_changes, key=_breaking_order),
        findings=sorted(report.llm.findings, key=lambda f: SEVERITY_ORDER[f.severity]),
        llm_ran=report.llm.status in (LlmStatus.completed, LlmStatus.stopped),
        Status=LlmStatus,
    )
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    source = files("prflow").joinpath("templates", TEMPLATE_NAME).read_text(encoding="utf-8")
    environment = jinja2.Environment(
        autoescape=False,  # Markdown, not HTML: cells are escaped by the filters below
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(
        cell=cell,
        code=code,
        yes_no=lambda value: "yes" if value else "no",
        number=_number,
        kind_label=KIND_LABEL.__getitem__,
        stale_label=STALE_REASON_LABEL.__getitem__,
        tier_label=CONFIG_TIER_LABEL.__getitem__,
        short_sha=lambda sha: sha[:7],
        consumers=_consumers,
        tests=_tests,
        count_of=count_of,
        reason=reason,
        model_quote=model_quote,
        model_line=model_line,
        model_cell=model_cell,
    )
    environment.globals.update(capped=capped, remaining=remaining)
    return environment.from_string(source)


def cell(value: object) -> str:
    """Plain text safe inside a table cell: one line, no pipes, no raw HTML, bounded length."""
    text = _truncate(str(value))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("|", "\\|")
    return re.sub(r"\r?\n", "<br>", text.strip())


# A line starting like this would open a heading, quote, table, list, fence or setext underline.
_BLOCK_START = re.compile(r"^(\s*)(\d+)?([#>|=+*`~.)-])")


def _inert_line(line: str) -> str:
    """One line of model prose with HTML escaped, images disarmed and block syntax escaped."""
    text = drop_unsafe_links(line)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # No images (a badge could show any verdict), no table cells, no bold that could mimic
    # the report's own "**Risk Score**:" line.
    text = text.replace("![", "!\\[").replace("|", "\\|").replace("*", "\\*")
    return _BLOCK_START.sub(lambda m: f"{m[1]}{m[2] or ''}\\{m[3]}", text, count=1)


def model_quote(value: str) -> str:
    """Model prose as a Markdown block quote that renders as plain paragraphs, nothing more."""
    lines = [_inert_line(line.rstrip()) for line in value.strip().splitlines()]
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


def model_line(value: str) -> str:
    """Model prose on one line (a list item), rendered inert like :func:`model_quote`."""
    return _inert_line(" ".join(value.split()))


def model_cell(value: object) -> str:
    """A table cell of model prose: :func:`cell`, and no bold that could mimic a report line."""
    return cell(drop_unsafe_links(str(value))).replace("*", "\\*")


def reason(value: str) -> str:
    """A reason clause for mid-sentence use: escaped, without trailing period, never empty."""
    return cell(value).rstrip(" .") or "no reason given"


def code(value: object) -> str:
    """An inline code span that survives backticks, pipes and newlines in ``value``."""
    text = re.sub(r"\s*\r?\n\s*", " ", _truncate(str(value))).replace("|", "\\|")
    longest_run = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest_run + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def count_of(count: int, noun: str) -> str:
    """``1 finding`` / ``3 findings``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def capped(items: Sequence[T], limit: int) -> Sequence[T]:
    return items[:limit]


def remaining(items: Sequence[Any], limit: int) -> int:
    return max(0, len(items) - limit)


def _truncate(text: str) -> str:
    if len(text) <= MAX_CELL_CHARS:
        return text
    return text[: MAX_CELL_CHARS - 1].rstrip() + "…"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _breaking_order(change: BreakingChange) -> tuple[int, str, str]:
    return SEVERITY_ORDER[change.severity], change.file, change.symbol


def _consumers(paths: Sequence[str], shown: int = 3) -> str:
    if not paths:
        return "none found"
    listed = ", ".join(code(path) for path in paths[:shown])
    extra = len(paths) - shown
    return f"{len(paths)}: {listed}" + (f" and {extra} more" if extra > 0 else "")


def _tests(paths: Sequence[str], shown: int = 2) -> str:
    if not paths:
        return "—"
    listed = ", ".join(code(path) for path in paths[:shown])
    extra = len(paths) - shown
    return listed + (f" and {extra} more" if extra > 0 else "")
