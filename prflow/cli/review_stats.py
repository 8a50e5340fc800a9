"""``prflow review stats``: what people made of prflow's findings, per repository and dimension.

Accepted and rebutted come from the conversation's judgement of replies, fixed from
threads a push resolved, open from findings the last review posted that no one judged
yet. The precision signal an organisation tunes its review with.
"""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from prflow.config import load_settings
from prflow.errors import UserError
from prflow.store.finding_verdicts import finding_stats

COLUMNS = ("accepted", "rebutted", "fixed", "open")
PLAIN_OUTPUT_WIDTH = 200


def show_stats(action: str, repo: str | None, as_json: bool) -> None:
    if action != "stats":
        raise UserError(
            f"prflow review takes no argument {action!r}; use `prflow review stats` for the "
            "findings' outcomes, or `prflow review --pr owner/repo#12` to review"
        )
    if repo is not None and repo.count("/") != 1:
        raise UserError(f"--repo {repo!r}: with stats, name a repository as owner/name")
    rows = finding_stats(load_settings().resolved_database_url(), repo)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("No findings posted or judged yet.")
        return
    table = Table(title="Findings by repository and dimension")
    for header in ("Repository", "Dimension", *(c.capitalize() for c in COLUMNS)):
        table.add_column(
            header, justify="left" if header in ("Repository", "Dimension") else "right"
        )
    for row in rows:
        table.add_row(str(row["repo"]), str(row["dimension"]), *(str(row[c]) for c in COLUMNS))
    Console(width=None if Console().is_terminal else PLAIN_OUTPUT_WIDTH).print(table)
