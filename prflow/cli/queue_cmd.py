"""``prflow queue``: poll an organisation on a schedule, inspect a PR's queue, check a config."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from prflow.cli.cluster import cluster_client
from prflow.config import load_settings
from prflow.errors import UserError

if TYPE_CHECKING:
    from prflow.pr_identifier import PullRequestRef
    from prflow.queue.state import QueueStatus

queue_app = typer.Typer(
    help="The org-wide PR queue: polling schedules, per-PR status, .prflow.toml checks.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    from prflow.cli import webhook_cmd

    app.add_typer(queue_app, name="queue")
    webhook_cmd.register(app)


@queue_app.command("poll")
def poll(
    org: Annotated[str, typer.Option("--org", help="GitHub organisation to poll.")],
    every: Annotated[
        str, typer.Option("--every", help="How often: 5m, 1h, 1d (at least 1m).")
    ] = "5m",
    lookback: Annotated[
        str, typer.Option("--lookback", help="How far back the first poll looks: 30m, 1d, 2w.")
    ] = "1d",
    delete: Annotated[
        bool, typer.Option("--delete", help="Remove the organisation's poll schedule.")
    ] = False,
) -> None:
    """Poll ORG for PRs updated since the last poll, on a Temporal Schedule (no webhook needed).

    Creates (or updates) the schedule queue-poll:ORG on the cluster; each run lists PRs
    updated since the previous successful run and hands each to its PR's queue workflow.
    Runs never overlap. Needs GITHUB_TOKEN on the workers.

    Example: prflow queue poll --org acme --every 5m
    """
    from prflow.queue.poll import parse_every, poll_schedule_id
    from prflow.store.costs import parse_since

    interval = parse_every(every)
    if not delete:
        from datetime import UTC, datetime

        now = datetime.now(UTC)
        first_lookback = (now - parse_since(lookback, now)).total_seconds()
        if first_lookback <= 0:
            raise UserError(f"--lookback {lookback} must reach into the past, e.g. 1d")
    schedule_id = poll_schedule_id(org)
    if delete:
        asyncio.run(_delete_schedule(schedule_id))
        typer.echo(f"removed schedule {schedule_id}")
        return
    created = asyncio.run(_upsert_schedule(org, interval.total_seconds(), first_lookback))
    verb = "created" if created else "updated"
    typer.echo(f"{verb} schedule {schedule_id}: polls {org} every {every}")


async def _upsert_schedule(org: str, every_seconds: float, lookback_seconds: float) -> bool:
    from datetime import timedelta

    from temporalio.client import (
        Schedule,
        ScheduleActionStartWorkflow,
        ScheduleAlreadyRunningError,
        ScheduleIntervalSpec,
        ScheduleOverlapPolicy,
        SchedulePolicy,
        ScheduleSpec,
        ScheduleUpdate,
        ScheduleUpdateInput,
    )

    from prflow.queue.delivery import queue_names
    from prflow.queue.kind import POLL_WORKFLOW
    from prflow.queue.poll import PollRequest, poll_schedule_id

    settings = load_settings()
    client = await cluster_client(settings)
    queues = queue_names(settings)
    schedule = Schedule(
        action=ScheduleActionStartWorkflow(
            POLL_WORKFLOW,
            PollRequest(org=org, queues=queues, first_lookback_seconds=lookback_seconds),
            id=poll_schedule_id(org),
            task_queue=queues.main,
            execution_timeout=timedelta(minutes=30),
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(seconds=every_seconds))]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )
    try:
        await client.create_schedule(poll_schedule_id(org), schedule)
        return True
    except ScheduleAlreadyRunningError:

        def replace(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(poll_schedule_id(org)).update(replace)
        return False


async def _delete_schedule(schedule_id: str) -> None:
    from temporalio.service import RPCError, RPCStatusCode

    client = await cluster_client(load_settings())
    try:
        await client.get_schedule_handle(schedule_id).delete()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise UserError(f"no schedule {schedule_id}; nothing to remove") from None
        raise


@queue_app.command("status")
def status(
    pr: Annotated[str, typer.Argument(help="The pull request: owner/repo#N or its URL.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Show a PR's queue: head, last reviewed head, the job running, recent runs and notes.

    Example: prflow queue status acme/api#12
    """
    from prflow.pr_identifier import parse_pr_identifier

    found = asyncio.run(_status(parse_pr_identifier(pr)))
    if as_json:
        typer.echo(json.dumps(found.model_dump(mode="json"), indent=2))
        return
    state = found.state
    typer.echo(f"{state.pr.slug}: {'closed' if state.closed else 'open'}")
    typer.echo(f"  head {state.head_sha or '?'}; last reviewed {state.last_reviewed_sha or '-'}")
    if found.waiting_for_slot:
        typer.echo(f"  waiting for a job slot of {state.org}")
    if found.running is not None:
        typer.echo(f"  running {found.running.kind} ({found.running.workflow_id})")
    for run in state.runs[-10:]:
        detail = f" - {run.detail}" if run.detail else ""
        typer.echo(f"  {run.kind} @ {run.head_sha[:12]}: {run.outcome.value}{detail}")


async def _status(pr: PullRequestRef) -> QueueStatus:
    from temporalio.service import RPCError, RPCStatusCode

    from prflow.queue.kind import STATUS_QUERY, pr_queue_id
    from prflow.queue.state import QueueStatus

    client = await cluster_client(load_settings())
    try:
        found: QueueStatus = await client.get_workflow_handle(pr_queue_id(pr)).query(
            STATUS_QUERY, result_type=QueueStatus
        )
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise UserError(
                f"no queue workflow for {pr.slug}: no event for it reached this cluster yet"
            ) from None
        raise
    return found


@queue_app.command("check-config")
def check_config(
    path: Annotated[Path, typer.Argument(help="The file to check.")] = Path(".prflow.toml"),
) -> None:
    """Check a repository's .prflow.toml the way the queue reads it; one line per verdict.

    Example: prflow queue check-config .prflow.toml
    """
    from prflow.queue.jobs import queue_kinds
    from prflow.queue.repo_config import parse_repo_config
    from prflow.registry import KINDS

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"cannot read {path} ({err}); pass the path of a UTF-8 TOML file") from None
    config = parse_repo_config(text, list(queue_kinds(KINDS)))
    jobs = ", ".join(config.jobs_to_run(load_settings().queue.jobs)) or "none"
    state = "enabled" if config.enabled else "disabled"
    typer.echo(f"{path}: ok ({state}; jobs: {jobs}; {len(config.ignore_paths)} ignored patterns)")
