"""Human-readable tables for ``prflow pr``: the same data as ``--format json``, laid out."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from prflow.pr_tools.checks_report import ChecksReport
from prflow.pr_tools.conflicts import ConflictReport
from prflow.pr_tools.pagination import PageInfo
from prflow.pr_tools.rebase_plan import RebasePlan
from prflow.pr_tools.review_threads import UnresolvedThreads
from prflow.pr_tools.stack import StackPlan
from prflow.pr_tools.thread_resolution import ThreadList
from prflow.pr_tools.token_permissions import PermissionReport

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


def print_threads(out: Console, found: ThreadList) -> None:
    out.print(f"{escape(found.pr)}: {len(found.threads)} shown of {found.total} review threads")
    if not found.threads:
        return
    table = Table("Thread", "Where", "State", "Author", "Comment id", "Comments")
    for row in found.threads:
        where = f"{row.path}:{row.line}" if row.line else row.path
        state = ("resolved" if row.is_resolved else "open") + (
            ", outdated" if row.is_outdated else ""
        )
        author = f"{row.author} (prflow)" if row.prflow else row.author
        table.add_row(
            row.id, escape(where), state, escape(author), str(row.comment_id or ""),
            str(row.comments),
        )  # fmt: skip
    out.print(table)


def print_conflicts(out: Console, report: ConflictReport) -> None:
    out.print(escape(report.message))
    for file in report.files:
        kinds = ", ".join(file.kinds) or "conflict"
        out.print(f"\n[bold]{escape(file.path)}[/bold] ({escape(kinds)})")
        for message in file.messages:
            out.print(f"  {escape(message)}")
        for hunk in file.hunks:
            out.print(f"  lines {hunk.start_line}-{hunk.end_line}:")
            for line in hunk.base_side:
                out.print(f"    {escape(report.base_ref)}| {escape(line)}", highlight=False)
            for line in hunk.head_side:
                out.print(f"    head| {escape(line)}", highlight=False)
        if file.more_hunks:
            out.print(f"  … {file.more_hunks} more conflicting regions")
    if report.commands:
        out.print("\nTo resolve locally:")
        for command in report.commands:
            out.print(f"  {escape(command)}", highlight=False)


def print_rebase(out: Console, plan: RebasePlan) -> None:
    out.print(escape(plan.message))
    for commit in plan.commits:
        note = "  (already on the new base: dropped)" if commit.in_new_base else ""
        out.print(f"  {commit.sha[:12]} {escape(commit.subject)}{note}", highlight=False)
    out.print("Run:")
    for command in plan.commands:
        out.print(f"  {escape(command)}", highlight=False)


def print_permissions(out: Console, report: PermissionReport) -> None:
    who = report.login or "a GitHub App installation"
    out.print(f"{escape(report.pr)}: token of {escape(who)} on {escape(report.repository)}")
    table = Table("Tool", "Allowed", "Why", "Needs")
    for tool in report.tools:
        allowed = "unknown" if tool.allowed is None else "yes" if tool.allowed else "no"
        table.add_row(tool.tool, allowed, escape(tool.why), escape(tool.needs))
    out.print(table)
