"""``prflow pr``: unresolved review threads, failing CI with re-run commands, stacked PRs.

Quick reads call GitHub directly; ``prflow pr checks --wait`` runs the
durable ``pr_checks`` workflow, which polls on Temporal timers and survives
worker restarts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from pydantic import BaseModel

from prflow.errors import UserError
from prflow.pr_identifier import ACCEPTED_FORMS, PullRequestRef, parse_pr_identifier
from prflow.pr_tools.checks import CiState
from prflow.pr_tools.checks_report import ChecksReport
from prflow.pr_tools.run_models import MAX_WAIT_SECONDS, PrChecksRequest

if TYPE_CHECKING:
    from prflow.config import Settings

EXIT_CHECKS_FAILED = 1
T = TypeVar("T")

pr_app = typer.Typer(
    name="pr",
    help="Pull request tools: review threads (list, reply, resolve), failing CI, stacked PRs, "
    "merge conflicts, rebases after a squash merge, token permissions.",
    no_args_is_help=True,
)

PrArgument = Annotated[str, typer.Argument(help=f"The pull request: {ACCEPTED_FORMS}.")]
PageOption = Annotated[int, typer.Option("--page", min=1, help="Page to show (1-based).")]


class Format(StrEnum):
    table = "table"
    json = "json"


FormatOption = Annotated[
    Format, typer.Option("--format", help="table (for people) or json (for scripts and agents).")
]


def _call_github(pr: PullRequestRef, read: Callable[[], T]) -> T:
    """Run a GitHub read; an outage is one line (exit 3), never a traceback."""
    from temporalio.exceptions import ApplicationError

    from prflow.cli.workflow_failed import WorkflowFailed

    try:
        return read()
    except ApplicationError as err:
        raise WorkflowFailed(
            f"could not read {pr.slug} from GitHub ({err.message}); try again later"
        ) from err


def _emit(result: BaseModel, output: Format, table: Callable[[], None]) -> None:
    if output == Format.json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        table()


@pr_app.command("comments")
def comments(
    pr: PrArgument,
    exclude_authors: Annotated[
        str,
        typer.Option(
            "--exclude-authors",
            help="Comma-separated logins to leave out (bots are included by default). "
            "Example: --exclude-authors coderabbitai,github-actions",
        ),
    ] = "",
    page: PageOption = 1,
    page_size: Annotated[int, typer.Option(min=1, max=100, help="Threads per page.")] = 20,
    output: FormatOption = Format.table,
) -> None:
    """List the PR's unresolved review threads (read through GitHub's GraphQL API)."""
    from activities.github.pr_tools import unresolved_comments
    from prflow.cli.pr_tables import console, print_comments

    ref = parse_pr_identifier(pr)
    report = _call_github(
        ref,
        lambda: unresolved_comments(
            ref, exclude_authors=exclude_authors.split(","), page=page, page_size=page_size
        ),
    )
    _emit(report, output, lambda: print_comments(console(), report))


@pr_app.command("checks")
def checks(
    pr: PrArgument,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait",
            help="Wait for CI to finish as a durable workflow (survives restarts; "
            "30 minutes at most).",
        ),
    ] = False,
    bail_on_first: Annotated[
        bool, typer.Option("--bail-on-first", help="With --wait: stop at the first failing check.")
    ] = False,
    max_wait: Annotated[
        int,
        typer.Option(
            "--max-wait", min=0, max=MAX_WAIT_SECONDS, help="With --wait: give up after N seconds."
        ),
    ] = MAX_WAIT_SECONDS,
    poll: Annotated[
        int, typer.Option("--poll", min=1, help="With --wait: seconds between looks at CI.")
    ] = 30,
    page: PageOption = 1,
    page_size: Annotated[int, typer.Option(min=1, max=100, help="Failures per page.")] = 10,
    output: FormatOption = Format.table,
) -> None:
    """Show failing checks with the tests that failed in their logs and re-run commands.

    Exit codes: 0 CI passed, still running or not configured; 1 CI failed; 2 usage
    error; 3 GitHub or the workflow failed.
    """
    from prflow.cli.pr_tables import console, print_checks

    ref = parse_pr_identifier(pr)
    if bail_on_first and not wait:
        raise UserError("--bail-on-first only applies with --wait, e.g. --wait --bail-on-first")
    if wait:
        request = PrChecksRequest(
            pr=ref,
            bail_on_first=bail_on_first,
            max_wait_seconds=max_wait,
            poll_seconds=poll,
            page=page,
            page_size=page_size,
        )
        report = asyncio.run(wait_for_checks(request))
    else:
        from activities.github.pr_tools import failing_checks

        report = _call_github(ref, lambda: failing_checks(ref, page=page, page_size=page_size))
    _emit(report, output, lambda: print_checks(console(), report))
    if report.state == CiState.failed:
        raise typer.Exit(EXIT_CHECKS_FAILED)


async def wait_for_checks(
    request: PrChecksRequest, settings: Settings | None = None
) -> ChecksReport:
    """Start (or attach to) the ``pr_checks`` workflow and fetch its stored report
    (``settings``: the environment's unless a caller such as the MCP server adjusts them)."""
    from prflow.cli.progress import PhaseDisplay
    from prflow.cli.run_client import run_on
    from prflow.config import load_settings
    from prflow.pr_tools.kind import PR_CHECKS
    from worker.embedded import temporal_runtime

    settings = settings or load_settings()
    with PhaseDisplay(f"prflow pr checks --wait  {request.pr.slug}", quiet=True) as display:
        async with temporal_runtime(settings) as runtime:
            ref, texts = await run_on(
                runtime, PR_CHECKS, request, display, wanted_blobs=lambda r: [r.report_key]
            )
    return ChecksReport.model_validate_json(texts[ref.report_key])


@pr_app.command("stack")
def stack(pr: PrArgument, output: FormatOption = Format.table) -> None:
    """Find the PR's stack and say what to rebase onto what, in order, and what can merge.

    A PR is stacked when its base branch is another PR's head branch.
    """
    from activities.github.pr_tools import stack_plan
    from prflow.cli.pr_tables import console, print_stack

    ref = parse_pr_identifier(pr)
    plan = _call_github(ref, lambda: stack_plan(ref))
    _emit(plan, output, lambda: print_stack(console(), plan))


@pr_app.command("threads")
def threads(
    pr: PrArgument,
    show_all: Annotated[
        bool, typer.Option("--all", help="Resolved threads too (to unresolve one).")
    ] = False,
    output: FormatOption = Format.table,
) -> None:
    """List the PR's review threads with the ids the other commands take."""
    from activities.github.resolution import list_threads
    from prflow.cli.pr_tables import console, print_threads

    ref = parse_pr_identifier(pr)
    found = _call_github(ref, lambda: list_threads(ref, resolved=show_all))
    _emit(found, output, lambda: print_threads(console(), found))


@pr_app.command("reply")
def reply(
    pr: PrArgument,
    target: Annotated[
        str, typer.Argument(help="A thread id (PRRT_...) or a comment id of the thread.")
    ],
    body: Annotated[
        str, typer.Option("--body", help="The reply (Markdown); '-' reads it from stdin.")
    ],
    output: FormatOption = Format.table,
) -> None:
    """Reply in a review thread."""
    import sys

    from activities.github.resolution import reply as post_reply

    ref = parse_pr_identifier(pr)
    text = sys.stdin.read() if body == "-" else body
    posted = _call_github(ref, lambda: post_reply(ref, target, text))
    _emit(posted, output, lambda: typer.echo(f"replied: {posted.url}"))


ThreadIds = Annotated[
    list[str] | None, typer.Argument(help="Thread ids (PRRT_...) from `prflow pr threads`.")
]


@pr_app.command("resolve")
def resolve(
    pr: PrArgument,
    thread_ids: ThreadIds = None,
    outdated: Annotated[
        bool,
        typer.Option(
            "--outdated", help="Every unresolved prflow thread a later push made outdated."
        ),
    ] = False,
    output: FormatOption = Format.table,
) -> None:
    """Resolve review threads by id, or prflow's outdated ones."""
    from activities.github.resolution import resolve_threads

    ref = parse_pr_identifier(pr)
    report = _call_github(
        ref, lambda: resolve_threads(ref, thread_ids or [], resolve=True, outdated=outdated)
    )
    _emit(report, output, lambda: typer.echo(report.message))


@pr_app.command("unresolve")
def unresolve(
    pr: PrArgument, thread_ids: ThreadIds = None, output: FormatOption = Format.table
) -> None:
    """Unresolve review threads by id."""
    from activities.github.resolution import resolve_threads

    ref = parse_pr_identifier(pr)
    report = _call_github(ref, lambda: resolve_threads(ref, thread_ids or [], resolve=False))
    _emit(report, output, lambda: typer.echo(report.message))


@pr_app.command("conflicts")
def conflicts(pr: PrArgument, output: FormatOption = Format.table) -> None:
    """Say whether the PR merges cleanly and, when not, the conflicting files and hunks.

    GitHub's mergeable state, plus a trial merge of the base branch's tip and the PR's head
    in a scratch repository (your checkout and git config are not used). Exit codes: 0
    clean, 1 conflicts, 2 usage error, 3 GitHub failed.
    """
    from activities.github.resolution import merge_conflicts
    from prflow.cli.pr_tables import console, print_conflicts

    ref = parse_pr_identifier(pr)
    report = _call_github(ref, lambda: merge_conflicts(ref))
    _emit(report, output, lambda: print_conflicts(console(), report))
    if report.conflicts:
        raise typer.Exit(EXIT_CHECKS_FAILED)


@pr_app.command("rebase")
def rebase(pr: PrArgument, output: FormatOption = Format.table) -> None:
    """Print the commands that rebase the PR after its base PR was (squash-)merged: its own
    commits, in order, replayed onto the branch the base went into."""
    from activities.github.resolution import rebase_after_merge
    from prflow.cli.pr_tables import console, print_rebase

    ref = parse_pr_identifier(pr)
    plan = _call_github(ref, lambda: rebase_after_merge(ref))
    _emit(plan, output, lambda: print_rebase(console(), plan))


@pr_app.command("permissions")
def permissions(pr: PrArgument, output: FormatOption = Format.table) -> None:
    """What the token may do on the PR: reply, resolve, read conflicts, push a rebase."""
    from activities.github.resolution import token_permissions
    from prflow.cli.pr_tables import console, print_permissions

    ref = parse_pr_identifier(pr)
    report = _call_github(ref, lambda: token_permissions(ref))
    _emit(report, output, lambda: print_permissions(console(), report))


def register(app: typer.Typer) -> None:
    app.add_typer(pr_app)
