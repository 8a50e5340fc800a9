"""Human-readable tables for ``prflow pr``: the same data as ``--format json``, laid out."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from prflow.pr_tools.checks_report import ChecksReport
from prflow.pr_tools.pagination import PageInfo
from prflow.pr_tools.review_threads import UnresolvedThreads
from prflow.pr_tools.stack import StackPlan

PLAIN_OUTPUT_WIDTH = 200  # without a terminal, keep whole rows for pipes and CI logs
BODY_PREVIEW_CHARS = 160


def console() -> Console:
    found = Console()
    return found if found.is_terminal else Console(width=PLAIN_OUTPUT_WIDTH)


def _page_line(info: PageInfo, noun: str) -> str:
    line = f"page {info.page} of {info.total_pages} ({info.total_items} {noun})"
    if info.has_next:
        line += f"; next: --page {info.page + 1}"
    return line


def print_comments(out: Console, report: UnresolvedThreads) -> None:
    names = ", ".join(report.excluded_authors)
    excluded = f", excluding {names}" if names else ""
    out.print(
        f"{escape(report.pr)}: {report.unresolved_threads} unresolved of "
        f"{report.total_threads} review threads{escape(excluded)}"
    )
    if not report.threads.items:
        return
    table = Table("Where", "Author", "Comment", "Replies", show_lines=True)
    for thread in report.threads.items:
        where = f"{thread.path}:{thread.line}" if thread.line else f"{thread.path} (outdated)"
        first = thread.comments[0] if thread.comments else None
        body = " ".join((first.body if first else "").split())
        if len(body) > BODY_PREVIEW_CHARS:
            body = body[: BODY_PREVIEW_CHARS - 1] + "…"
        author = f"{thread.author} (bot)" if first and first.author_type == "Bot" else thread.author
        replies = len(thread.comments) - 1 + thread.more_comments
        table.add_row(escape(where), escape(author), escape(body), str(max(replies, 0)))
    out.print(table)
    out.print(_page_line(report.threads.pagination, "threads"))


def print_checks(out: Console, report: ChecksReport) -> None:
    out.print(f"{escape(report.pr)} @ {report.head_sha[:12]}: {escape(report.summary)}")
    for check in report.failing_checks:
        note = f" — {check.note}" if check.note else f" — {check.failures} failing tests"
        out.print(f"  ✗ {escape(check.name)} ({check.conclusion}){escape(note)}")
    if not report.failures.items:
        return
    table = Table("Test", "Location", "Message", show_lines=True)
    for failure in report.failures.items:
        table.add_row(escape(failure.test), escape(failure.location), escape(failure.message))
    out.print(table)
    out.print("Re-run locally:")
    for command in report.commands:
        out.print(f"  {escape(command)}", soft_wrap=True)
    out.print(_page_line(report.failures.pagination, "failures"))


def print_stack(out: Console, plan: StackPlan) -> None:
    out.print(escape(plan.message))
    if plan.stacked:
        table = Table("#", "PR", "Branch → base", "Action", "Ready to merge")
        for entry in plan.entries:
            pull = entry.pull
            ready = "yes" if entry.readiness.ready else "no: " + "; ".join(entry.readiness.blockers)
            table.add_row(
                str(entry.position),
                f"#{pull.number} {escape(pull.title)}",
                escape(f"{pull.head_ref} → {pull.base_ref}"),
                escape(f"{entry.action.value}: {entry.reason}"),
                escape(ready),
            )
        out.print(table)
    for number, step in enumerate(plan.steps, start=1):
        out.print(f"{number}. {escape(step)}")
    for entry in plan.entries:
        if entry.commands:
            out.print(f"# #{entry.pull.number}")
            for command in entry.commands:
                out.print(f"  {escape(command)}", soft_wrap=True)
