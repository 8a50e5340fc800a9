"""Entry point of the ``prflow`` console script: one Typer app, one module per command."""

from __future__ import annotations

import sys

import typer

from prflow.errors import UserError

app = typer.Typer(
    name="prflow",
    help="Durable PR intelligence on Temporal.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_commands() -> None:
    from prflow.cli import costs_cmd, impact_cmd, runtime_cmd

    runtime_cmd.register(app)
    impact_cmd.register(app)
    costs_cmd.register(app)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; user errors become one line on stderr and exit code 2."""
    _register_commands()
    try:
        app(args=argv, standalone_mode=True)
    except UserError as err:
        print(f"prflow: error: {err.message}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("prflow: interrupted", file=sys.stderr)
        sys.exit(130)
