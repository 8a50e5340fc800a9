"""The impact report as GitHub-flavoured Markdown, from the package template.

The template only lays out sections; this module decides what each cell says,
and :mod:`prflow.render.markdown_text` makes every value safe inside a table
(pipes, newlines, HTML, backticks).
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
from prflow.analysis.findings import BreakingChange
from prflow.impact.models import ImpactReport, LlmStatus
from prflow.render.finding_labels import KIND_LABEL, STALE_REASON_LABEL
from prflow.render.markdown_text import (
    cell,
    code,
    model_cell,
    model_line,
    model_quote,
    reason,
)
from prflow.severity import Severity

TEMPLATE_NAME = "impact_report.md.j2"
DEFAULT_MAX_ROWS = 50

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


def count_of(count: int, noun: str) -> str:
    """``1 finding`` / ``3 findings``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def capped(items: Sequence[T], limit: int) -> Sequence[T]:
    return items[:limit]


def remaining(items: Sequence[Any], limit: int) -> int:
    return max(0, len(items) - limit)


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
