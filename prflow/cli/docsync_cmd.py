"""``prflow docsync``: the docs a change affects, bucketed, with targeted and reasoned edits."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from prflow.cli.model_options import ModelOptions
from prflow.cli.output_file import check_output_path, write_output
from prflow.cli.run_target import checked_target
from prflow.config import Settings, load_settings
from prflow.credentials import refuse_credentials
from prflow.docsync.kind import DOCSYNC
from prflow.docsync.models import Bucket, Thresholds
from prflow.docsync.run_models import AGENT_PHASE, DocsyncRequest, DocsyncResult
from prflow.errors import UserError

EXIT_GATE = 1
EXIT_FAILED = 3

EXAMPLES = """
Examples:

  prflow docsync --repo . --base origin/main --head HEAD --dry-run  # buckets and patches

  prflow docsync --repo . --base v1.4.0 --head v2.0.0 --apply # write the edits

  prflow docsync --repo . --base main --head feature --branch docs/sync

  prflow docsync --pr acme/api#123 --post                     # one sticky PR comment

  prflow docsync --show 'docsync:api-1a2b3c:main..HEAD'       # the audit trail of a run
"""

_THRESHOLD_KEYS = {
    "must": "must_update",
    "must_update": "must_update",
    "review": "review",
    "decay": "link_decay",
    "depth": "link_depth",
}


class DocsyncFormat(StrEnum):
    md = "md"
    json = "json"


def parse_thresholds(values: list[str]) -> Thresholds:
    """``must=0.8``, ``review=0.4``, ``decay=0.5``, ``depth=2`` over the defaults."""
    fields: dict[str, float | int] = {}
    for value in values:
        key, sep, number = value.partition("=")
        name = _THRESHOLD_KEYS.get(key.strip().replace("-", "_"))
        if not sep or name is None:
            raise UserError(
                f"--threshold {value!r}: use must=0.8, review=0.4, decay=0.5 or depth=2"
            )
        try:
            fields[name] = int(number) if name == "link_depth" else float(number)
        except ValueError:
            raise UserError(f"--threshold {value!r}: {number!r} is not a number") from None
    try:
        return Thresholds(**fields)  # type: ignore[arg-type]
    except ValidationError as err:
        problem = err.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "thresholds"
        raise UserError(f"--threshold {where}: {problem['msg']}") from None


def docsync(
    repo: Annotated[
        str | None,
        typer.Option(
            help="Repository: a local path or a clone URL. Default: the current directory."
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(help="Base ref the change is compared against. Default: main, else master."),
    ] = None,
    head: Annotated[str, typer.Option(help="Head ref holding the change.")] = "HEAD",
    pr: Annotated[
        str | None,
        typer.Option("--pr", help="Pull request instead of --base/--head: owner/repo#12 or URL."),
    ] = None,
    docs: Annotated[
        list[str] | None,
        typer.Option(
            "--docs",
            help="Doc glob (gitignore style, repeatable); replaces the defaults (Markdown, MDX, "
            "reStructuredText, AsciiDoc, README). Example: --docs 'docs/**/*.md'",
        ),
    ] = None,
    threshold: Annotated[
        list[str] | None,
        typer.Option(
            "--threshold",
            help="Bucket thresholds (repeatable): must=0.8 review=0.4 decay=0.5 depth=2.",
        ),
    ] = None,
    fail_on: Annotated[
        Bucket | None,
        typer.Option(help="CI gate: exit 1 when a doc lands in this bucket (or a worse one)."),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Report and patches only, no writes (the default without --apply, --branch, "
            "--post or --open-pr; refuses them).",
        ),
    ] = False,
    apply: Annotated[
        bool, typer.Option("--apply", help="Write the edits into the working tree of --repo.")
    ] = False,
    branch: Annotated[
        str | None,
        typer.Option(help="Commit the edits on this new branch (working tree untouched)."),
    ] = None,
    post: Annotated[
        bool, typer.Option("--post", help="Create or update one docsync comment on the PR.")
    ] = False,
    open_pr: Annotated[
        bool, typer.Option("--open-pr", help="Open a draft follow-up PR with the edits.")
    ] = False,
    show: Annotated[
        str | None,
        typer.Option("--show", help="Print the audit trail of run RUN (its workflow id)."),
    ] = None,
    output_format: Annotated[
        DocsyncFormat, typer.Option("--format", help="Output: md (Markdown) or json.")
    ] = DocsyncFormat.md,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report to this file.")
    ] = None,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Static mode: find and bucket docs, no edits.")
    ] = False,
    model: Annotated[
        str | None, typer.Option(help="Model tier (budget, mid, premium) or id for the doc agents.")
    ] = None,
    budget_usd: Annotated[
        float | None, typer.Option(min=0, help="Spend cap in USD per doc agent.")
    ] = None,
    max_iterations: Annotated[
        int | None, typer.Option(min=1, help="Maximum model turns per doc agent (default 12).")
    ] = None,
    time_limit: Annotated[
        int | None, typer.Option(min=1, help="Wall-clock limit in seconds per doc agent.")
    ] = None,
    budget_wait: Annotated[
        int | None,
        typer.Option(min=0, help="Seconds to wait for `prflow budget raise` when a cap is hit."),
    ] = None,
    max_docs: Annotated[
        int, typer.Option(min=0, help="Run agents on at most this many docs (best first).")
    ] = 20,
    concurrency: Annotated[int, typer.Option(min=1, help="Doc agents running at once.")] = 4,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Find the docs a change affects and propose minimal, reasoned edits to them.

    Docs are found in code (the symbols, paths, CLI options, config keys and environment
    variables the change alters; front-matter mappings; links) and bucketed must update /
    review / probably fine with the line that says why. With ANTHROPIC_API_KEY set, one agent
    per doc proposes exact-unique edits, each with its reason; every edit is kept as a patch.

    Exit codes: 0 success, 1 a doc in the --fail-on bucket, 2 usage error, 3 run failed.
    """
    check_output_path(output)
    options = ModelOptions(
        enabled=not no_llm,
        model=model,
        budget_usd=budget_usd,
        max_iterations=max_iterations,
        time_limit=time_limit,
        budget_wait=budget_wait,
    )
    settings = load_settings()
    if show is not None:
        text = asyncio.run(_show(settings, show, output_format))
        _emit(text, output)
        return
    refuse_credentials(repo, pr)
    if dry_run and (apply or branch or post or open_pr):
        raise UserError("a dry run writes nothing: drop --apply, --branch, --post and --open-pr")
    if (post or open_pr) and not pr:
        raise UserError("--post and --open-pr need --pr to know the PR, e.g. --pr owner/repo#12")
    if (apply or branch) and pr and not repo:
        raise UserError("--apply and --branch write to a local clone: pass it with --repo")
    thresholds = parse_thresholds(threshold or [])
    location, pull = checked_target(repo, pr, base, head)

    plan = options.plan(settings, DOCSYNC, AGENT_PHASE)
    request = DocsyncRequest(
        repo=location,
        pull_request=pull,
        base=base,
        head=head,
        docs=docs or [],
        thresholds=thresholds,
        llm=plan,
        max_docs=max_docs,
        max_concurrency=concurrency,
        branch=branch,
        post_comment=post,
        open_pr=open_pr,
    )
    from prflow.cli.run_client import run_request

    def wanted(result: DocsyncResult) -> list[str]:
        keys = [] if output_format.value in result.inline else [_key(result, output_format)]
        return [*keys, *([result.patch_key] if result.patch_key else [])]

    result, texts = run_request(settings, DOCSYNC, request, wanted, quiet=quiet)
    key = result.report_key if output_format == DocsyncFormat.json else result.markdown_key
    _emit(result.inline.get(output_format.value) or texts[key], output)
    _local_writes(result, texts, location, apply=apply, branch=branch)
    if result.pr_url:
        typer.echo(f"prflow: opened the draft follow-up PR {result.pr_url}", err=True)
    elif open_pr:
        typer.echo("prflow: no edits, so no follow-up PR was opened", err=True)
    if fail_on is not None and _gate(result, fail_on):
        typer.echo(f"prflow: docs in bucket {fail_on.value} or worse", err=True)
        raise typer.Exit(EXIT_GATE)


def _gate(result: DocsyncResult, bucket: Bucket) -> bool:
    order = [Bucket.must_update, Bucket.review, Bucket.probably_fine]
    return any(result.counts.get(b.value, 0) for b in order[: order.index(bucket) + 1])


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text)
        return
    write_output(output, text)
    typer.echo(f"prflow: wrote the docsync report to {output}", err=True)


def _local_writes(
    result: DocsyncResult,
    texts: dict[str, str],
    location: str | None,
    *,
    apply: bool,
    branch: str | None,
) -> None:
    """Say what the run committed on ``--branch``; write ``--apply``'s edits into the clone."""
    if not (apply or branch):
        return
    if result.branch_refused:
        raise UserError(result.branch_refused)
    diff = texts.get(result.patch_key or "", "")
    if not diff:
        typer.echo("prflow: no edits to write", err=True)
        return
    if result.branch and result.branch_commit:
        typer.echo(
            f"prflow: committed the edits on branch {result.branch} ({result.branch_commit[:12]})",
            err=True,
        )
    if not apply:
        return
    from prflow.cli.docsync_local import apply_patches

    if location is None or not Path(location).is_dir():
        raise UserError("--apply and --branch write to a local clone: pass it with --repo")
    typer.echo(apply_patches(Path(location), diff, result.head_sha, result.workflow_id), err=True)


def _key(result: DocsyncResult, output_format: DocsyncFormat) -> str:
    return result.report_key if output_format == DocsyncFormat.json else result.markdown_key


async def _show(settings: Settings, run_id: str, output_format: DocsyncFormat) -> str:
    """The stored report of a finished run (no database needed: see ``stored_texts``)."""
    from temporalio.client import WorkflowFailureError
    from temporalio.service import RPCError

    from prflow.cli.stored_texts import read_stored
    from worker.embedded import temporal_runtime

    async with temporal_runtime(settings) as runtime:
        handle = runtime.client.get_workflow_handle(run_id, result_type=DocsyncResult)
        try:
            description = await handle.describe()
            if description.workflow_type != DOCSYNC.name:
                raise UserError(f"run {run_id} is a {description.workflow_type} run, not docsync")
            result: DocsyncResult = await handle.result()
        except RPCError:
            raise UserError(
                f"no run {run_id!r}: pass the workflow id a docsync run printed"
            ) from None
        except WorkflowFailureError:
            raise UserError(f"run {run_id} failed; it left no audit trail") from None
        inline = result.inline.get(output_format.value)
        if inline is not None:
            return inline
        key = _key(result, output_format)
        return (await read_stored(runtime, run_id, [key]))[key]


def register(app: typer.Typer) -> None:
    app.command("docsync", epilog=EXAMPLES)(docsync)
