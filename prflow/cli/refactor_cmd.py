"""``prflow refactor``: a directive in, a planned, audited and tested change out.

The run is durable: ``--detach`` returns with its id at once and
``--attach RUN`` follows it again (from any machine on the same cluster) and
writes the artifacts. Exit codes: 0 validated (or nothing to change), 1
aborted (regressions, audit errors, every step failed, no valid plan, no tests,
budget or deadline; the report says why and the tree is untouched), 2 usage,
3 failure (infrastructure).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Annotated

import typer

from prflow.cli.model_options import ModelOptions
from prflow.config import Settings, load_settings
from prflow.credentials import refuse_credentials
from prflow.durations import parse_duration
from prflow.errors import UserError
from prflow.git.repo import ANY_EXIT, GitError, run_git
from prflow.refactor.kind import REFACTOR
from prflow.refactor.run_models import MODEL_PHASES, RefactorRequest, RefactorResult, RunStatus
from prflow.sandbox.models import SandboxMode

EXIT_ABORTED = 1
EXIT_USAGE = 2
EXAMPLES = """
Examples:

  prflow refactor --repo . --directive "Convert the sync file operations in storage/ to async \
and update callers and tests" --output out/

  prflow refactor --repo . --directive-file directive.md --output out/ --dry-run

  prflow refactor --repo . --directive "..." --output out/ --apply

  prflow refactor --repo . --directive "..." --output out/ --branch refactor/async-io

  prflow refactor --repo . --directive "..." --detach          # prints the run id
  prflow refactor --attach refactor:api-1a2b3c:9f8e7d6c --output out/
"""


def _directive(directive: str | None, directive_file: Path | None) -> str:
    if (directive is None) == (directive_file is None):
        raise UserError(
            "give the refactor as --directive TEXT or --directive-file PATH (exactly one)"
        )
    if directive_file is not None:
        try:
            text = directive_file.read_text("utf-8")
        except OSError as err:
            raise UserError(f"--directive-file {directive_file}: {err.strerror or err}") from None
    else:
        text = directive or ""
    if len(text.strip()) < 3:
        raise UserError(
            "the directive is empty; say what to change, e.g. --directive "
            '"Convert storage/ to async"'
        )
    return text.strip()


def github_slug(location: str) -> str:
    """``owner/name`` of the GitHub repository a URL or a local clone's origin names."""
    url = location
    if not re.match(r"^[a-z+]+://|^git@", location):
        try:
            done = run_git(["remote", "get-url", "origin"], cwd=Path(location), ok_codes=ANY_EXIT)
        except (GitError, OSError):  # git took too long, or the location is not a directory
            done = None
        url = done.stdout.decode("utf-8", errors="replace").strip() if done is not None else ""
    match = re.search(r"github\.com[:/]([^/\s]+)/([^/\s]+?)(?:\.git)?/?$", url)
    if match is None:
        raise UserError(
            "--open-pr needs a GitHub repository: pass --repo https://github.com/OWNER/NAME "
            "or a clone whose origin is on GitHub"
        )
    return f"{match.group(1)}/{match.group(2)}"


def _output_dir(output: Path | None) -> Path | None:
    if output is None:
        return None
    if output.exists() and not output.is_dir():
        raise UserError(f"--output {output} is a file; name a directory for the artifacts")
    parent = output if output.exists() else output.parent
    if not parent.exists():
        raise UserError(f"--output {output}: {parent} does not exist; create it first")
    return output


def refactor(
    repo: Annotated[
        str | None,
        typer.Option("--repo", help="Repository to refactor: a local path or a clone URL."),
    ] = None,
    directive: Annotated[
        str | None, typer.Option("--directive", help="What to change, in plain words.")
    ] = None,
    directive_file: Annotated[
        Path | None, typer.Option("--directive-file", help="Read the directive from a file.")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Directory for diffs/, pr-summary.md, validation-report.json (and "
            "agent-log.json with --verbose).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Plan and diffs only: no test runs, no writes.")
    ] = False,
    apply: Annotated[
        bool,
        typer.Option(
            "--apply",
            help="Write the change into the working tree once validated (only if it is still "
            "clean at the base commit).",
        ),
    ] = False,
    branch: Annotated[
        str | None,
        typer.Option("--branch", help="Commit the validated change on this new branch."),
    ] = None,
    open_pr: Annotated[
        bool,
        typer.Option("--open-pr", help="Open a draft PR with pr-summary.md as its body."),
    ] = False,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="Glob of files the refactor may touch (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Glob or directory it must not touch (repeatable)."),
    ] = None,
    max_retries: Annotated[
        int, typer.Option("--max-retries", min=0, max=10, help="Retries per task.")
    ] = 3,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Also write agent-log.json (every agent turn).")
    ] = False,
    test_command: Annotated[
        str | None,
        typer.Option(
            "--test-command",
            help="The tests as you type them at the repository root, run by sh -c in the "
            "sandbox (e.g. 'PYTHONPATH=src python -m pytest -q', 'make test', 'npm test'). "
            "Default: [refactor] test_command in prflow.toml, else detected.",
        ),
    ] = None,
    allow_unsandboxed: Annotated[
        bool,
        typer.Option(
            "--allow-unsandboxed",
            help="Run tests with the best sandbox this worker has, down to none.",
        ),
    ] = False,
    sandbox: Annotated[
        SandboxMode | None,
        typer.Option(
            "--sandbox",
            help="Where the repository's code runs: bwrap (full, the default), network-only "
            "or none.",
        ),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", help="What to print: md (pr-summary) or json (result).")
    ] = "md",
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Static mode: index and baseline only, no edits.")
    ] = False,
    budget_usd: Annotated[
        float | None,
        typer.Option(min=0, help="Spend cap in USD for the run; phase caps scale to fit."),
    ] = None,
    budget_wait: Annotated[
        int | None,
        typer.Option(min=0, help="Seconds an agent at its cap waits for `prflow budget raise`."),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, max=8, help="Independent tasks run at the same time.")
    ] = 2,
    deadline: Annotated[
        str | None,
        typer.Option(
            help="Wall-clock limit for the whole run ('2h', '45m', seconds): at it the run "
            "stops starting steps and ends aborted with its report.",
        ),
    ] = None,
    detach: Annotated[
        bool, typer.Option("--detach", help="Start the run, print its id and return.")
    ] = False,
    attach: Annotated[
        str | None,
        typer.Option("--attach", metavar="RUN", help="Follow run RUN and write its artifacts."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Refactor a repository from a directive: plan, edit, audit, test, validate.

    A premium planner splits the directive into as many steps as it needs; each step
    runs as its own workflow (an executor agent editing a private workspace, an auditor
    in code, the tests its files map to, a recovery ladder); the whole suite runs
    before and after. The run is validated only when no test that passed before fails
    after. Nothing touches your working tree unless you ask (--apply, --branch,
    --open-pr) and the change validated. Kill the worker at any moment: the run
    resumes where it stopped.

    Exit codes: 0 validated or nothing to change, 1 aborted (the report says why),
    2 usage error, 3 failure.
    """
    if output_format not in ("md", "json"):
        raise UserError(f"--format {output_format!r}: choose md or json")
    out_dir = _output_dir(output)
    settings = load_settings()
    if attach is not None:
        if repo or directive or directive_file:
            raise UserError("--attach follows an existing run: drop --repo and --directive")
        result, texts = asyncio.run(_attach(settings, attach, quiet))
        raise typer.Exit(_emit(result, texts, out_dir, output_format))
    if repo is None:
        raise UserError("--repo is required: a local path (e.g. --repo .) or a clone URL")
    refuse_credentials(repo, None)
    from prflow.cli.run_target import run_location

    location = run_location(repo, None)
    assert location is not None
    text = _directive(directive, directive_file)
    pr_repo = github_slug(location) if open_pr else None
    deadline_seconds = parse_duration(deadline) if deadline is not None else None
    options = ModelOptions(enabled=not no_llm, budget_usd=budget_usd, budget_wait=budget_wait)

    def build() -> RefactorRequest:
        try:
            return RefactorRequest(
                repo=location,
                directive=text,
                include=list(include or []),
                exclude=list(exclude or []),
                dry_run=dry_run,
                apply=apply,
                branch=branch,
                open_pr=open_pr,
                pr_repo=pr_repo,
                max_retries=max_retries,
                verbose=verbose,
                test_command=test_command or settings.refactor.test_command,
                allow_unsandboxed=allow_unsandboxed,
                sandbox=sandbox,
                deadline_seconds=deadline_seconds,
                plans=options.plans(settings, REFACTOR, MODEL_PHASES),
                max_concurrency=concurrency,
            )
        except ValueError as err:
            raise UserError(_first_error(err)) from None

    request = build()
    if detach:
        run_id = asyncio.run(_detach(settings, request))
        typer.echo(run_id)
        typer.echo(f"prflow: started; follow it with `prflow refactor --attach {run_id}`", err=True)
        return
    from prflow.cli.run_client import run_request

    def wanted(result: RefactorResult) -> list[str]:
        return list(result.artifact_keys.values())

    result, texts = run_request(settings, REFACTOR, request, wanted, quiet=quiet)
    raise typer.Exit(_emit(result, texts, out_dir, output_format))


def _first_error(err: ValueError) -> str:
    errors = getattr(err, "errors", None)
    if callable(errors):
        first = errors()[0]
        return str(first.get("msg", err)).removeprefix("Value error, ")
    return str(err)


async def _detach(settings: Settings, request: RefactorRequest) -> str:
    from prflow.cli.run_client import start_or_attach
    from worker.embedded import temporal_runtime

    async with temporal_runtime(settings, with_worker=False) as runtime:
        handle = await start_or_attach(runtime.client, REFACTOR, request, runtime.queues)
        return str(handle.id)


async def _attach(
    settings: Settings, run_id: str, quiet: bool
) -> tuple[RefactorResult, dict[str, str]]:
    from temporalio.service import RPCError

    from prflow.cli.progress import PhaseDisplay
    from prflow.cli.run_client import follow
    from prflow.cli.stored_texts import read_stored
    from worker.embedded import temporal_runtime

    with PhaseDisplay(f"prflow refactor  {run_id}", quiet=quiet) as display:
        async with temporal_runtime(settings) as runtime:
            handle = runtime.client.get_workflow_handle(run_id, result_type=RefactorResult)
            try:
                await handle.describe()
            except RPCError:
                raise UserError(
                    f"no refactor run {run_id!r} on {runtime.address}; the id is what "
                    "--detach printed"
                ) from None
            result: RefactorResult = await follow(handle, display)
            texts = await read_stored(runtime, run_id, result.artifact_keys.values())
            return result, texts


def _emit(
    result: RefactorResult, texts: dict[str, str], out_dir: Path | None, output_format: str
) -> int:
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "diffs").mkdir(exist_ok=True)
        for name, key in result.artifact_keys.items():
            target = out_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(texts[key], "utf-8")
    if output_format == "json":
        typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        summary_key = result.artifact_keys.get("pr-summary.md")
        if summary_key is not None and out_dir is None:
            typer.echo(texts[summary_key], nl=False)
    done = sum(1 for t in result.tasks if t.status == "done")
    line = (
        f"prflow: {result.status.value}: {result.reason}; {done}/{len(result.tasks)} tasks, "
        f"{len(result.changed_files)} files"
    )
    if out_dir is not None:
        line += f"; artifacts in {out_dir}"
    if result.applied:
        line += "; applied to the working tree"
    if result.branch:
        line += f"; branch {result.branch}"
    if result.pr_url:
        line += f"; PR {result.pr_url}"
    typer.echo(line, err=True)
    if result.delivery_refused:
        typer.echo(f"prflow: error: {result.delivery_refused}", err=True)
        return EXIT_USAGE
    return EXIT_ABORTED if result.status == RunStatus.aborted else 0


def register(app: typer.Typer) -> None:
    app.command("refactor", epilog=EXAMPLES)(refactor)
