"""``prflow costs``: what the LLM phases have cost, read from the ledger."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from prflow.config import load_settings
from prflow.errors import UserError
from prflow.store.costs import (
    GROUPINGS,
    CostReport,
    GroupSpend,
    PhaseCut,
    Spend,
    group_spend,
    parse_since,
    summarize,
)

# Without a terminal rich would wrap to 80 columns; pipes and CI logs get full rows.
PLAIN_OUTPUT_WIDTH = 200

COSTS_HELP = (
    "Show LLM spend from the cost ledger.\n\n"
    "One table groups spend by workflow kind, phase and model, another by workflow id "
    "(with its repository and PR); both show attempts, failed attempts, tokens by kind "
    "and USD, followed by the totals and the phases a cap cut (which agent, which cap, "
    "why). With --by, one table groups spend by repository, pull request, kind, phase or "
    "model instead.\n\n"
    "Example: prflow costs --since 2026-11-01 --until 2026-12-01 --by repo"
)

TOKEN_HEADERS = ("Input tok", "Output tok", "Cache write", "Cache read")


def register(app: typer.Typer) -> None:
    """Add the ``costs`` command to the CLI."""
    app.command("costs", help=COSTS_HELP)(costs)


def costs(
    workflow_id: Annotated[
        str | None,
        typer.Option("--workflow-id", help="Only count attempts of this workflow id."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="Only count attempts from this far back (30m, 24h, 7d, 2w) "
            "or since an ISO date/time (2026-01-31).",
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            help="Only count attempts before this moment: a duration back from now (1d) or an "
            "ISO date/time (2026-02-01, exclusive).",
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Group by one of: repo, pr, kind, phase, model."),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the figures as JSON (stable keys) instead of tables."),
    ] = False,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="Ledger database (SQLAlchemy URL); defaults to the configured one.",
        ),
    ] = None,
) -> None:
    now = datetime.now(UTC)
    start = parse_since(since, now) if since else None
    end = parse_since(until, now, option="--until") if until else None
    if start is not None and end is not None and end <= start:
        raise UserError(f"--until {until} is not after --since {since}; swap or widen them")
    if by is not None and by not in GROUPINGS:
        raise UserError(f"--by {by!r} is not a grouping; use one of: {', '.join(GROUPINGS)}")
    settings = load_settings()
    url = database_url or settings.resolved_database_url()
    from prflow.cli.ledger_check import existing_ledger
    from prflow.store.ledger import spend_slices  # SQLAlchemy: only when costs are asked for
    from prflow.store.phase_cuts import phase_cuts

    # A read never creates a database (a typo must not leave an empty one behind).
    exists = existing_ledger(url, explicit=database_url is not None)
    slices = spend_slices(url, workflow_id=workflow_id, since=start, until=end) if exists else []
    cuts = phase_cuts(url, workflow_id=workflow_id, since=start, until=end) if exists else []
    report = summarize(slices, cuts)
    groups = group_spend(slices, by) if by else None
    if as_json:
        payload: dict[str, object] = {
            "filters": {
                "workflow_id": workflow_id,
                "since": start.isoformat() if start else None,
                "until": end.isoformat() if end else None,
            },
            **report.model_dump(mode="json"),
        }
        if groups is not None:
            payload["by"] = by
            payload["groups"] = [group.model_dump(mode="json") for group in groups]
        typer.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    console = Console()
    if not console.is_terminal:
        console = Console(width=PLAIN_OUTPUT_WIDTH)
    if groups is not None and by is not None:
        print_groups(console, by, groups, report.totals)
    else:
        print_report(console, report)
    print_cuts(console, report.cuts)


def print_cuts(console: Console, cuts: list[PhaseCut]) -> None:
    """Which phases a cap cut short, by which cap and why (nothing when none was cut)."""
    if not cuts:
        return
    table = Table(title="Phases cut by a cap")
    for header in ("Workflow id", "Kind", "Phase", "Agent", "Cap", "Why"):
        table.add_column(header, no_wrap=header != "Why")
    for cut in cuts:
        table.add_row(cut.workflow_id, cut.workflow_kind, cut.phase, cut.agent, cut.cap, cut.reason)
    console.print(table)


def print_groups(console: Console, by: str, groups: list[GroupSpend], totals: Spend) -> None:
    """One table: spend per repository, PR, kind, phase or model."""
    if totals.attempts == 0:
        console.print("No LLM attempts recorded for this selection.")
        return
    table = Table(title=f"Spend by {by}")
    table.add_column(by.capitalize(), no_wrap=True)
    _add_figure_columns(table)
    for group in groups:
        table.add_row(group.key, *_figures(group))
    table.add_section()
    table.add_row("Total", *_figures(totals))
    console.print(table)


def print_report(console: Console, report: CostReport) -> None:
    """Both spend tables, then the totals."""
    if report.totals.attempts == 0:
        console.print("No LLM attempts recorded for this selection.")
        return
    console.print(_phase_table(report))
    console.print(_workflow_table(report))
    totals = report.totals
    console.print(
        f"Total: {_usd(totals.usd)} USD over {totals.attempts} attempts "
        f"({totals.failed_attempts} failed); tokens: "
        f"{totals.input_tokens:,} input, {totals.output_tokens:,} output, "
        f"{totals.cache_write_tokens:,} cache write, {totals.cache_read_tokens:,} cache read"
    )
    if totals.unknown_attempts:
        console.print(
            f"Unknown: {totals.unknown_attempts} attempts were sent but their worker stopped "
            f"before the answer was recorded; they may have cost up to "
            f"{_usd(totals.unknown_worst_usd)} USD more."
        )
    if totals.reused_attempts:
        console.print(
            f"Reused: {totals.reused_attempts} attempts were answered from an answer already "
            "received (a retry after a lost completion, or a question the run had already "
            "asked) at 0 USD."
        )


def _phase_table(report: CostReport) -> Table:
    table = Table(title="Spend by workflow kind, phase and model")
    for header in ("Kind", "Phase", "Model"):
        table.add_column(header, no_wrap=True)
    _add_figure_columns(table)
    for row in report.by_phase:
        table.add_row(row.workflow_kind, row.phase, row.model, *_figures(row))
    table.add_section()
    table.add_row("Total", "", "", *_figures(report.totals))
    return table


def _workflow_table(report: CostReport) -> Table:
    table = Table(title="Spend by workflow")
    for header in ("Workflow id", "Kind", "Repository", "PR"):
        table.add_column(header, no_wrap=True)
    _add_figure_columns(table)
    for row in report.by_workflow:
        pr = f"#{row.pr_number}" if row.pr_number is not None else ""
        table.add_row(row.workflow_id, row.workflow_kind, row.repo or "", pr, *_figures(row))
    table.add_section()
    table.add_row("Total", "", "", "", *_figures(report.totals))
    return table


def _add_figure_columns(table: Table) -> None:
    for header in ("Attempts", "Failed", *TOKEN_HEADERS, "USD"):
        table.add_column(header, justify="right", no_wrap=True)


def _figures(spend: Spend) -> tuple[str, ...]:
    return (
        str(spend.attempts),
        str(spend.failed_attempts),
        f"{spend.input_tokens:,}",
        f"{spend.output_tokens:,}",
        f"{spend.cache_write_tokens:,}",
        f"{spend.cache_read_tokens:,}",
        _usd(spend.usd),
    )


def _usd(amount: float) -> str:
    return f"{amount:.4f}"
