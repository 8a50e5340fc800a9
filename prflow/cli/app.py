"""Entry point of the ``prflow`` console script: one Typer app, one module per command.

Every way a command can fail ends here as one line on stderr and an exit code:
2 for what the user can fix (usage, settings, a service that does not answer),
3 for a run that failed, 130 for Ctrl-C. ``PRFLOW_DEBUG=1`` re-raises
unexpected errors with their traceback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable
from typing import Annotated

import typer
from pydantic import ValidationError

from prflow import __version__
from prflow.credentials import redact
from prflow.errors import VERBOSE_ENV, Unreachable, UserError, user_error_in
from prflow.file_names import display_fs
from prflow.registry import KIND_COMMANDS

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


_RUNTIME = "prflow.cli.runtime_cmd:register"

COMMANDS: dict[str, str] = {
    "server": _RUNTIME,
    "worker": _RUNTIME,
    **KIND_COMMANDS,
    "costs": "prflow.cli.costs_cmd:register",
    "budget": "prflow.cli.budget_cmd:register",
    "cancel": "prflow.cli.cancel_cmd:register",
    "mcp": "prflow.cli.mcp_cmd:register",
}
"""The ``module:register`` that adds each top-level command, in the order help lists them:
the platform's own here, each kind's from its line in :mod:`prflow.registry`. By path, so
a command imports its own module only, not every kind's (a test checks the table against
what each ``register`` adds)."""


def _command_asked(args: list[str]) -> str | None:
    """The top-level command ``args`` run when it is one this process can register alone.

    The global options take no values, so the first word that is not an option names the
    command. None (register everything) for help, completion and anything unknown.
    """
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # shell completion lists every command
    from prflow.cli.argv import command_word  # the launcher's reading of the same words

    word = command_word(args)
    return word if word in COMMANDS else None


def _asks_version(args: list[str]) -> bool:
    """Whether ``args`` print the version and exit before any command could run (``--version``
    comes before ``--help`` and before any command word: eager options act in order)."""
    for arg in args:
        if arg == "--version":
            return True
        if arg == "--help" or not arg.startswith("-"):
            return False
    return False


def _register_commands(args: list[str] | None = None) -> None:
    """Add the commands to the app: only the one ``args`` runs when known, none for
    ``--version``, else all of them."""
    if args is not None and _asks_version(args):
        return
    asked = _command_asked(args) if args is not None else None
    wanted = [COMMANDS[asked]] if asked is not None else list(dict.fromkeys(COMMANDS.values()))
    for path in wanted:
        _register_function(path)(app)


def _register_function(path: str) -> Callable[[typer.Typer], None]:
    """The ``register`` function named ``module:function``, its module imported now."""
    import importlib

    module_name, _, function = path.partition(":")
    register: Callable[[typer.Typer], None] = getattr(
        importlib.import_module(module_name), function
    )
    return register


Outcome = tuple[int, str | None]
"""Exit code, and the line to print on stderr (None for a clean exit)."""


def _error(message: str, code: int) -> Outcome:
    # One line, whatever the message held, and never a secret from a URL in it.
    return code, f"prflow: error: {redact(' '.join(message.split()))}"


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
    if argv is None:  # the console script: this process is the command's alone
        _collect_less()
    interrupts.install()
    try:
        code, line = _run(argv)
    except interrupts.Interrupted:  # raised outside any command (the line is out already)
        code, line = EXIT_INTERRUPTED, None
    if line is not None:
        print(line, file=sys.stderr)
    timings.mark("exit")
    timings.flush()
    if argv is None:  # the console script: this process ends here
        _exit_process(code)
    # Temporal clients own Rust threads that abort the interpreter ("PyGILState_Release")
    # when they are still alive while it finalizes (temporalio/sdk-python#300). The
    # exception that ended the command may hold the last reference through its
    # traceback; it is gone now, so collect the clients while Python is still whole.
    gc.collect()
    sys.exit(code)


CLIENT_GC_THRESHOLD = 50_000
"""Young-generation collections after this many net allocations (Python's default: 700)."""


def _collect_less() -> None:
    """Let the garbage collector mostly sit out the command's start: what is loaded so far
    (Typer, pydantic) lives until the process ends, so it is frozen out of full collections,
    and the imports to come (the Temporal SDK's modules and protobuf descriptors) allocate
    far more than they free, so collections come 70x less often. Cycles are still
    collected, after at most this many allocations; a command that follows a run for
    minutes keeps bounded memory. About 30 ms of a warm command's CPU."""
    gc.freeze()
    gc.set_threshold(CLIENT_GC_THRESHOLD, 20, 20)


def _exit_process(code: int) -> None:
    """End the process now, skipping the interpreter's teardown, when nothing needs it.

    Tearing down a process that loaded the Temporal SDK (its core runtime's threads,
    thousands of modules and protobuf descriptors) takes longer than a warm command's
    whole client work. The exit handlers still run (logging flushes its files there) and
    the standard streams are flushed; the teardown itself frees memory only. A thread
    still running, or a stream that cannot be flushed, takes the ordinary way out, which
    waits for the one and reports the other as it always did.
    """
    import atexit
    import threading

    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # before the exit handlers ran: the ordinary exit runs them once
    atexit._run_exitfuncs()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()  # anything an exit handler printed
        sys.stderr.flush()
    os._exit(code)


def _run(argv: list[str] | None) -> Outcome:
    from prflow.cli.workflow_failed import WorkflowFailed

    debug = bool(os.environ.get("PRFLOW_DEBUG"))
    args = sys.argv[1:] if argv is None else argv
    undecodable = _first_undecodable(args)
    if undecodable is not None:
        return _error(
            f"argument '{undecodable}' is not valid UTF-8; prflow needs UTF-8 paths, refs and "
            "ids (for a path, use a UTF-8 symlink to it)",
            EXIT_USAGE,
        )
    _register_commands(args)
    try:
        code = app(args=argv, standalone_mode=False)
    except UserError as err:
        return _error(err.message, EXIT_USAGE)
    except Unreachable as err:
        return _error(str(err), EXIT_USAGE)
    except WorkflowFailed as err:
        return _error(str(err), EXIT_FAILED)
    except ValidationError as err:
        cause = user_error_in(err)
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
