"""``prflow impact``: run the impact workflow on a range or a pull request and print the report."""

from __future__ import annotations

import asyncio
import hashlib
import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from prflow.config import Settings, load_settings
from prflow.credentials import refuse_credentials
from prflow.errors import UserError
from prflow.impact.request import llm_plan
from prflow.impact.run_models import ImpactRequest, ImpactResult
from prflow.pr_identifier import PullRequestRef
from prflow.repo_models import RepoSpec

EXIT_THRESHOLD = 1
EXIT_FAILED = 3

EXAMPLES = """
Examples:

  prflow impact --repo . --base main --head HEAD

  prflow impact --pr acme/api#123 --format sarif --output impact.sarif

  prflow impact --repo . --base origin/main --threshold 70   # CI gate: exit 1 when score >= 70

  prflow impact --pr https://github.com/acme/api/pull/123 --post   # upsert one PR comment
"""


class OutputFormat(StrEnum):
    md = "md"
    json = "json"
    sarif = "sarif"


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
    refuse_credentials(repo, pr)
    settings = load_settings()
    if pr and repo and not _looks_like_url(repo) and not Path(repo).exists():
        raise UserError(f"--repo {repo} does not exist; pass a local clone of the PR's repository")
    if post and not pr:
        raise UserError("--post needs --pr to know where to comment, e.g. --pr owner/repo#12")
    plan = llm_plan(
        settings,
        enabled=not no_llm,
        model=model,
        budget_usd=budget_usd,
        max_iterations=max_iterations,
        time_limit=time_limit,
        budget_wait=budget_wait,
    )
    draft = ImpactRequest(
        repo=repo,
        base=base,
        head=head,
        post_comment=post,
        llm=plan,
        github_task_queue=settings.temporal.github_task_queue,
    )
    request, workflow_id = _pin_request(draft, pr)
    result = asyncio.run(_execute(settings, request, workflow_id, quiet))
    _emit(result, output_format, output)
    if threshold is not None and result.score >= threshold:
        typer.echo(f"prflow: risk score {result.score} >= threshold {threshold}", err=True)
        raise typer.Exit(EXIT_THRESHOLD)


def _looks_like_url(location: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://|^[\w.-]+@[\w.-]+:", location))


def _pin_request(request: ImpactRequest, pr: str | None) -> tuple[ImpactRequest, str]:
    """Validate the target up front (one-line errors) and name the workflow after it.

    Workflow ids name the repository or PR and the head commit, so re-running the
    same command attaches to a run in flight instead of paying for a second one.
    """
    from activities.gitrepo import resolve_range
    from prflow.pr_identifier import parse_pr_identifier

    location = request.repo
    if location and not _looks_like_url(location):
        location = str(Path(location).resolve())
    if pr:
        pull = parse_pr_identifier(pr)
        pinned = request.model_copy(update={"repo": location, "pull_request": pull})
        return pinned, f"impact:{pull.slug}@{_pull_request_head(pull)[:12]}"
    location = location or str(Path.cwd())
    spec = RepoSpec(location=location)
    base_ref = request.base or _default_base(spec)
    rng = resolve_range(spec, base_ref, request.head or "HEAD")
    pinned = request.model_copy(update={"repo": location, "base": base_ref})
    name = Path(location.rstrip("/")).name.removesuffix(".git") or "repo"
    digest = hashlib.sha1(location.encode()).hexdigest()[:6]
    return pinned, f"impact:{name}-{digest}:{base_ref}..{rng.head_ref}@{rng.head_sha[:12]}"


def _default_base(spec: RepoSpec) -> str:
    """``main``, else ``master`` (locally or on origin), as most PRs target them."""
    from activities.gitrepo import commit_of, open_repo

    repo = open_repo(spec.location)
    for candidate in ("main", "master", "origin/main", "origin/master"):
        if commit_of(repo, candidate) is not None:
            return candidate
    raise UserError(f"{spec.location} has no main or master branch; name the base with --base REF")


def _pull_request_head(pull: PullRequestRef) -> str:
    from temporalio.exceptions import ApplicationError

    from activities.github import fetch_pull_request
    from prflow.cli.workflow_runner import WorkflowFailed

    try:
        return fetch_pull_request(pull).head_sha
    except ApplicationError as err:
        raise WorkflowFailed(
            f"could not read {pull.slug} from GitHub ({err.message}); try again later"
        ) from err


async def _execute(
    settings: Settings, request: ImpactRequest, workflow_id: str, quiet: bool
) -> ImpactResult:
    from prflow.cli.progress import PhaseDisplay
    from prflow.cli.workflow_runner import run_impact_workflow

    with PhaseDisplay(f"prflow impact  {workflow_id}", quiet=quiet) as display:
        return await run_impact_workflow(settings, request, workflow_id, display)


def _emit(result: ImpactResult, output_format: OutputFormat, output: Path | None) -> None:
    from activities.impact_analysis import load_text

    key = {
        OutputFormat.md: result.markdown_key,
        OutputFormat.json: result.report_key,
        OutputFormat.sarif: result.sarif_key,
    }[output_format]
    text = load_text(key)
    if output is None:
        typer.echo(text)
        return
    try:
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot write {output}: {err.strerror}; choose another --output") from err
    typer.echo(f"prflow: wrote {output_format.value} report to {output}", err=True)


def register(app: typer.Typer) -> None:
    app.command("impact", epilog=EXAMPLES)(impact)
