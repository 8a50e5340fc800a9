"""``prflow review``: run the multi-agent review of a pull request or a range and print it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prflow.cli.model_options import ModelOptions
from prflow.cli.output_file import check_output_path
from prflow.cli.report_output import OutputFormat, blobs_needed, emit_report
from prflow.cli.review_stats import show_stats
from prflow.cli.run_target import checked_target, pr_head
from prflow.config import load_settings
from prflow.credentials import refuse_credentials
from prflow.durations import parse_duration
from prflow.errors import UserError
from prflow.review.kind import REVIEW
from prflow.review.models import SEVERITY_RANK, ReviewDepth, ReviewSeverity
from prflow.review.run_models import MODEL_PHASES, ReviewRequest, ReviewResult

EXIT_THRESHOLD = 1

EXAMPLES = """
Examples:

  prflow review --pr acme/api#123                      # print the review (Markdown)

  prflow review --pr acme/api#123 --post               # post one review + the summary comment

  prflow review --repo . --base main --head HEAD --depth quick

  prflow review --repo . --pr acme/api#123 --post      # in CI: review the checkout, post to the PR

  prflow review --pr acme/api#123 --format sarif -o review.sarif --threshold important

  prflow review stats --repo acme/api                  # findings accepted/rebutted/fixed/open
"""


class Gate:
    """``--threshold``: a risk score (0-100, as ``prflow impact``) or a severity name."""

    def __init__(self, text: str) -> None:
        self.text = text.strip().lower()
        self.score: int | None = None
        self.severity: ReviewSeverity | None = None
        if self.text.isdigit() and 0 <= int(self.text) <= 100:
            self.score = int(self.text)
        elif self.text in {s.value for s in ReviewSeverity}:
            self.severity = ReviewSeverity(self.text)
        else:
            names = ", ".join(s.value for s in ReviewSeverity)
            raise UserError(
                f"--threshold {text!r} is neither a risk score from 0 to 100 nor a severity "
                f"({names}); e.g. --threshold 70 or --threshold important"
            )

    def failed_by(self, result: ReviewResult) -> str | None:
        """Why ``result`` fails the gate, or None."""
        if self.score is not None and result.risk_score >= self.score:
            return f"risk score {result.risk_score} >= threshold {self.score}"
        if self.severity is not None:
            limit = SEVERITY_RANK[self.severity]
            hits = sum(
                count
                for name, count in result.by_severity.items()
                if SEVERITY_RANK[ReviewSeverity(name)] <= limit
            )
            if hits:
                return f"{hits} findings at or above {self.severity.value}"
        return None


def review(
    action: Annotated[
        str | None,
        typer.Argument(
            help="`stats`: per repository and dimension, how many findings were accepted, "
            "rebutted, fixed or left open (with --repo owner/name to narrow, --format json).",
            show_default=False,
        ),
    ] = None,
    pr: Annotated[
        str | None,
        typer.Option(
            "--pr",
            help="Pull request to review, resolved through GitHub (needs GITHUB_TOKEN). Forms: "
            "owner/repo#12, owner/repo/pull/12 or the PR URL. With --repo, the local checkout "
            "is read at the PR's commits (how CI runs it).",
        ),
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            help="Repository to read: a local path or a clone URL. Defaults to the current "
            "directory when --pr is not given. Example: --repo .",
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(help="Base ref for a range review (default: main, else master)."),
    ] = None,
    head: Annotated[str, typer.Option(help="Head ref for a range review.")] = "HEAD",
    post: Annotated[
        bool,
        typer.Option(
            "--post",
            help="Post one GitHub review with inline comments and update the summary comment. "
            "Requires --pr and GITHUB_TOKEN.",
        ),
    ] = False,
    depth: Annotated[
        ReviewDepth,
        typer.Option(help="quick (2-3 review dimensions), standard (3-6) or deep (8-12)."),
    ] = ReviewDepth.standard,
    output_format: Annotated[
        OutputFormat,
        typer.Option("--format", help="Output format: md, json (versioned schema) or sarif."),
    ] = OutputFormat.md,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report to this file instead of stdout."),
    ] = None,
    threshold: Annotated[
        str | None,
        typer.Option(
            help="CI gate, exit 1 when reached: a risk score 0-100 (as prflow impact) or a "
            "severity (critical, important, suggestion, nitpick) any finding reaches.",
        ),
    ] = None,
    no_llm: Annotated[
        bool,
        typer.Option(
            "--no-llm",
            help="Static mode: anatomy, static findings and synthesis only; model phases skipped.",
        ),
    ] = False,
    budget_usd: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="Spend cap in USD for the whole review; every phase's cap is scaled to fit.",
        ),
    ] = None,
    budget_wait: Annotated[
        int | None,
        typer.Option(
            min=0, help="Seconds an agent at its cap waits for `prflow budget raise` (default 0)."
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, max=16, help="Reviewers running at the same time.")
    ] = 4,
    full: Annotated[
        bool,
        typer.Option("--full", help="Review every commit, not only those since the last review."),
    ] = False,
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
    """Review a pull request with planned, parallel reviewers and post one inline review.

    Intake, anatomy, planning, reviewers, the review layer (cross-references,
    an adversary, a coverage gate), synthesis in code, output. Reruns review
    only the commits pushed since the last review and never repeat a posted
    finding. With no model (--no-llm or no ANTHROPIC_API_KEY on the worker),
    the static findings are still synthesised and posted.

    Exit codes: 0 success, 1 --threshold reached, 2 usage error, 3 review failed.
    """
    if action is not None:
        show_stats(action, repo, output_format == OutputFormat.json)
        return
    refuse_credentials(repo, pr)
    deadline_seconds = parse_duration(deadline) if deadline is not None else None
    options = ModelOptions(enabled=not no_llm, budget_usd=budget_usd, budget_wait=budget_wait)
    settings = load_settings()
    check_output_path(output)
    gate = Gate(threshold) if threshold is not None else None
    if post and pr is None:
        raise UserError("--post needs --pr to know where to post, e.g. --pr owner/repo#12")
    location, pull = checked_target(repo, pr, base, head)
    plans = options.plans(settings, REVIEW, MODEL_PHASES)  # surfaces a mistake before GitHub
    request = ReviewRequest(
        pull_request=pull,
        pr_head_sha=pr_head(pull) if pull is not None else None,
        repo=location,
        base=None if pull else base,
        head=None if pull else head,
        post=post,
        depth=depth,
        plans=plans,
        max_concurrency=concurrency,
        full=full,
        deadline_seconds=deadline_seconds
        if deadline_seconds is not None
        else settings.budget.deadline,
    )
    from prflow.cli.run_client import run_request

    def wanted(result: ReviewResult) -> list[str]:
        return [] if result.already_reviewed else blobs_needed(result, output_format)

    result, texts = run_request(settings, REVIEW, request, wanted, quiet=quiet)
    _emit(result, texts, output_format, output)
    reason = gate.failed_by(result) if gate is not None else None
    if reason is not None:
        typer.echo(f"prflow: {reason}", err=True)
        raise typer.Exit(EXIT_THRESHOLD)


def _emit(
    result: ReviewResult, texts: dict[str, str], output_format: OutputFormat, output: Path | None
) -> None:
    if result.already_reviewed:
        typer.echo(
            f"prflow: {result.head_sha[:12]} was reviewed already; no new commits, nothing "
            "posted (--full reviews it again)",
            err=True,
        )
        return
    emit_report(result, texts, output_format, output)
    counts = ", ".join(f"{n} {name}" for name, n in sorted(result.by_severity.items())) or "none"
    line = f"prflow: {result.event.value if result.event else 'no review'}; findings: {counts}"
    if not result.complete:
        line += f"; incomplete (cut: {', '.join(result.cut_phases)})"
    if result.review_url:
        line += f"; posted {result.review_url}"
    typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    app.command("review", epilog=EXAMPLES)(review)
