"""Entry point of the ``prflow`` console script: one Typer app, one module per command."""

from __future__ import annotations

import os
import sys

import typer

from prflow.errors import UserError

EXIT_USAGE = 2
EXIT_FAILED = 3
EXIT_INTERRUPTED = 130

app = typer.Typer(
    name="prflow",
    help="Durable PR intelligence on Temporal.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_commands() -> None:
    from prflow.cli import budget_cmd, costs_cmd, mcp_cmd, runtime_cmd
    from prflow.kinds import import_path
    from prflow.registry import KINDS

    runtime_cmd.register(app)
    for kind in KINDS:
        if kind.cli is not None:
            import_path(kind.cli)(app)
    costs_cmd.register(app)
    budget_cmd.register(app)
    mcp_cmd.register(app)


def _fail(message: str, code: int) -> None:
    print(f"prflow: error: {message}", file=sys.stderr)
    sys.exit(code)


def _usage_hint(err: typer.TyperException) -> str:
    ctx = getattr(err, "ctx", None)
    path = getattr(ctx, "command_path", None) or "prflow"
    return f"see '{path} --help'"


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. User mistakes print one line and exit 2; failed runs exit 3."""
    from prflow.cli.run_client import WorkflowFailed

    _register_commands()
    try:
        code = app(args=argv, standalone_mode=False)
    except UserError as err:
        _fail(err.message, EXIT_USAGE)
    except WorkflowFailed as err:
        _fail(str(err), EXIT_FAILED)
    except OSError as err:
        if os.environ.get("PRFLOW_DEBUG"):
            raise
        where = f" ({err.filename})" if err.filename else ""
        _fail(f"{err.strerror or err}{where}; set PRFLOW_DEBUG=1 for details", EXIT_FAILED)
    except typer.TyperException as err:
        message = " ".join(err.format_message().split())
        _fail(f"{message} ({_usage_hint(err)})", EXIT_USAGE)
    except (typer.Abort, KeyboardInterrupt):
        print("prflow: interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(code if isinstance(code, int) else 0)
