"""Entry point of the ``prflow`` console script: one Typer app, one module per command.

Every way a command can fail ends here as one line on stderr and an exit code:
2 for what the user can fix (usage, settings, a service that does not answer),
3 for a run that failed, 130 for Ctrl-C. ``PRFLOW_DEBUG=1`` re-raises
unexpected errors with their traceback.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Annotated

import typer
from pydantic import ValidationError

from prflow import __version__
from prflow.credentials import redact
from prflow.errors import VERBOSE_ENV, Unreachable, UserError
from prflow.file_names import display_fs

EXIT_USAGE = 2
EXIT_FAILED = 3
EXIT_INTERRUPTED = 130

app = typer.Typer(
    name="prflow",
    help=f"Durable PR intelligence on Temporal (prflow {__version__}).",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"prflow {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Say where credentials and servers come from."),
    ] = False,
) -> None:
    if verbose:
        os.environ[VERBOSE_ENV] = "1"  # read by in-process workers too (worker processes inherit)


def _register_commands() -> None:
    from prflow.cli import budget_cmd, cancel_cmd, costs_cmd, mcp_cmd, runtime_cmd
    from prflow.kinds import import_path
    from prflow.registry import KINDS

    runtime_cmd.register(app)
    for kind in KINDS:
        if kind.cli is not None:
            import_path(kind.cli)(app)
    costs_cmd.register(app)
    budget_cmd.register(app)
    cancel_cmd.register(app)
    mcp_cmd.register(app)


Outcome = tuple[int, str | None]
"""Exit code, and the line to print on stderr (None for a clean exit)."""


def _error(message: str, code: int) -> Outcome:
    # One line, whatever the message held, and never a secret from a URL in it.
    return code, f"prflow: error: {redact(' '.join(message.split()))}"


def _user_error_in(err: ValidationError) -> UserError | None:
    """The user-facing cause of a model validation failure (e.g. a URL carrying a token)."""
    for detail in err.errors():
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, UserError):
            return cause
    return None


def _first_undecodable(args: list[str]) -> str | None:
    """The first argument holding bytes that are not UTF-8 (escaped), else None.

    Such bytes reach Python as lone surrogates, which no workflow payload,
    database or JSON report can carry; refusing them here beats failing later.
    """
    for arg in args:
        if any("\udc80" <= char <= "\udcff" for char in arg):
            return display_fs(arg)
    return None


def _usage_hint(err: typer.TyperException) -> str:
    ctx = getattr(err, "ctx", None)
    path = getattr(ctx, "command_path", None) or "prflow"
    return f"see '{path} --help'"


def main(argv: list[str] | None = None) -> None:
    """Run the CLI. User mistakes print one line and exit 2; failed runs exit 3."""
    from prflow.cli import interrupts, timings

    timings.mark("main")
    interrupts.install()
    try:
        code, line = _run(argv)
    except interrupts.Interrupted:  # raised outside any command (the line is out already)
        code, line = EXIT_INTERRUPTED, None
    # Temporal clients own Rust threads that abort the interpreter ("PyGILState_Release")
    # when they are still alive while it finalizes (temporalio/sdk-python#300). The
    # exception that ended the command may hold the last reference through its
    # traceback; it is gone now, so collect the clients while Python is still whole.
    gc.collect()
    if line is not None:
        print(line, file=sys.stderr)
    timings.mark("exit")
    timings.flush()
    sys.exit(code)


def _run(argv: list[str] | None) -> Outcome:
    from prflow.cli.run_client import WorkflowFailed

    debug = bool(os.environ.get("PRFLOW_DEBUG"))
    undecodable = _first_undecodable(sys.argv[1:] if argv is None else argv)
    if undecodable is not None:
        return _error(
            f"argument '{undecodable}' is not valid UTF-8; prflow needs UTF-8 paths, refs and "
            "ids (for a path, use a UTF-8 symlink to it)",
            EXIT_USAGE,
        )
    _register_commands()
    try:
        code = app(args=argv, standalone_mode=False)
    except UserError as err:
        return _error(err.message, EXIT_USAGE)
    except Unreachable as err:
        return _error(str(err), EXIT_USAGE)
    except WorkflowFailed as err:
        return _error(str(err), EXIT_FAILED)
    except ValidationError as err:
        cause = _user_error_in(err)
        if cause is None or debug:
            raise
        return _error(cause.message, EXIT_USAGE)
    except OSError as err:
        if debug:
            raise
        where = f" ({err.filename})" if err.filename else ""
        return _error(f"{err.strerror or err}{where}; set PRFLOW_DEBUG=1 for details", EXIT_FAILED)
    except typer.TyperException as err:
        message = err.format_message()
        return _error(f"{message} ({_usage_hint(err)})", EXIT_USAGE)
    except (typer.Abort, KeyboardInterrupt):
        return EXIT_INTERRUPTED, "prflow: interrupted"
    except BaseException as err:
        from prflow.cli.interrupts import Interrupted

        if isinstance(err, Interrupted):
            return EXIT_INTERRUPTED, None  # its line went out when Ctrl-C came
        raise
    except Exception as err:  # a bug or an unclassified failure: still one line
        if debug:
            raise
        return _error(
            f"{type(err).__name__}: {err}; set PRFLOW_DEBUG=1 to see the traceback", EXIT_FAILED
        )
    return (code if isinstance(code, int) else 0), None
