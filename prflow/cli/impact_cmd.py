"""``prflow impact``: run the impact workflow on a range or a pull request and print the report."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated

import typer

from prflow.cli import timings
from prflow.cli.model_options import ModelOptions
from prflow.cli.output_file import check_output_path
from prflow.cli.report_output import OutputFormat, blobs_needed, emit_report
from prflow.cli.run_target import checked_target, pr_head
from prflow.config import load_settings
from prflow.credentials import refuse_credentials
from prflow.durations import parse_duration
from prflow.errors import UserError
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE, ImpactRequest, ImpactResult

EXIT_THRESHOLD = 1
EXIT_FAILED = 3

EXAMPLES = """
Examples:

  prflow impact --repo . --base main --head HEAD

  prflow impact --pr acme/api#123 --format sarif --output impact.sarif

  prflow impact --repo . --base origin/main --threshold 70   # CI gate: exit 1 when score >= 70

  prflow impact --pr https://github.com/acme/api/pull/123 --post   # upsert one PR comment
"""


def impact(
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            help="Repository to analyse: a local path or a clone URL. Defaults to the current "
            "directory when --pr is not given. Example: --repo ../api",
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            help="Base ref (branch, tag or SHA) the change is compared against; the diff starts "
            "at the merge base like a PR. Default: main, else master. Example: --base origin/main",
        ),
    ] = None,
    head: Annotated[
        str,
        typer.Option(help="Head ref holding the change. Example: --head feature/login"),
    ] = "HEAD",
    pr: Annotated[
        str | None,
        typer.Option(
            "--pr",
            help="Pull request to analyse instead of --base/--head, resolved through GitHub "
            "(needs GITHUB_TOKEN). Forms: owner/repo#12, owner/repo/pull/12 or the PR URL.",
        ),
    ] = None,
    output_format: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            help="Report format: md (Markdown), json (versioned schema) or sarif (2.1.0).",
        ),
    ] = OutputFormat.md,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the report to this file instead of stdout. Example: -o impact.sarif",
        ),
    ] = None,
    threshold: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=100,
            help="CI gate: exit with code 1 when the risk score is >= this value (0-100). "
            "Example: --threshold 70",
        ),
    ] = None,
    post: Annotated[
        bool,
        typer.Option(
            "--post",
            help="Create or update one impact comment on the PR (found by a hidden marker). "
            "Requires --pr and GITHUB_TOKEN on the worker.",
        ),
    ] = False,
    no_llm: Annotated[
        bool,
        typer.Option(
            "--no-llm",
            help="Static mode: skip the model even when ANTHROPIC_API_KEY is set.",
        ),
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            help="Model tier (budget, mid, premium) or model id for the agent. Default: mid. "
            "Example: --model premium",
        ),
    ] = None,
    budget_usd: Annotated[
        float | None,
        typer.Option(min=0, help="Spend cap in USD for the agent phase. Example: --budget-usd 0.5"),
    ] = None,
    max_iterations: Annotated[
        int | None, typer.Option(min=1, help="Maximum model turns for the agent (default 30).")
    ] = None,
    time_limit: Annotated[
        int | None,
        typer.Option(min=1, help="Wall-clock limit in seconds for the agent phase (default 180)."),
    ] = None,
    budget_wait: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="When a cap is hit, wait this many seconds for `prflow budget raise` before "
            "stopping the agent. Default 0 (stop at once).",
        ),
    ] = None,
    deadline: Annotated[
        str | None,
        typer.Option(
            help="Time limit for the whole run, e.g. 15m or 1h30m: at it the run reports what "
            "it has, marked incomplete. Default: [budget] deadline in prflow.toml, else none.",
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress display; only the report.")
    ] = False,
) -> None:
    """Analyse what a change breaks, what it leaves untested, and how risky it is.

    The analysis runs as a durable Temporal workflow. Static analysis always runs;
    with ANTHROPIC_API_KEY set, an agent verifies and extends the findings and writes
    recommendations. The risk score (0-100) is always computed in code.

    Exit codes: 0 success, 1 score >= --threshold, 2 usage error, 3 analysis failed.
    """
    timings.mark("command")
    importlib.import_module("prflow.cli.run_client")  # the Temporal client, needed from here on
    timings.mark("imported")
    refuse_credentials(repo, pr)
    deadline_seconds = parse_duration(deadline) if deadline is not None else None
    options = ModelOptions(
        enabled=not no_llm,
        model=model,
        budget_usd=budget_usd,
        max_iterations=max_iterations,
        time_limit=time_limit,
        budget_wait=budget_wait,
    )
    settings = load_settings()
    check_output_path(output)
    if post and pr is None:
        raise UserError("--post needs --pr to know where to comment, e.g. --pr owner/repo#12")
    location, pull = checked_target(repo, pr, base, head)
    plan = options.plan(settings, IMPACT, LLM_PHASE)  # surfaces a model mistake before GitHub
    request = ImpactRequest(
        repo=location,
        pull_request=pull,
        pr_head_sha=pr_head(pull) if pull is not None else None,
        base=base,
        head=head,
        post_comment=post,
        llm=plan,
        deadline_seconds=deadline_seconds
        if deadline_seconds is not None
        else settings.budget.deadline,
    )
    from prflow.cli.run_client import run_request

    def wanted(result: ImpactResult) -> list[str]:
        return blobs_needed(result, output_format)

    result, texts = run_request(settings, IMPACT, request, wanted, quiet=quiet)
    emit_report(result, texts, output_format, output)
    timings.mark("written")
    if threshold is not None and result.score >= threshold:
        typer.echo(f"prflow: risk score {result.score} >= threshold {threshold}", err=True)
        raise typer.Exit(EXIT_THRESHOLD)


def register(app: typer.Typer) -> None:
    app.command("impact", epilog=EXAMPLES)(impact)
