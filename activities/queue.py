"""Activities of the org-wide PR queue: plan a PR's run, ask the org gate, poll an org.

Planning reads GitHub (the PR's current head and state) and git (the
repository's ``.prflow.toml`` at that head, the changed paths) and builds
each job's request with this worker's settings. The two others talk to
Temporal itself, through the worker's client: the gate and the PR workflows
are reached by signal-with-start, so whichever comes first starts them.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from activities.github.org_pulls import updated_pull_events
from activities.github.pulls import fetch_pull_request
from activities.heartbeats import heartbeating
from prflow.config import cached_settings
from prflow.conversation.events import CLOSED_EVENT_ID, PullAction, PullEvent, head_event_id
from prflow.errors import UserError
from prflow.git.repo import changed_files, open_repo, resolve_range, run_git
from prflow.queue.delivery import deliver
from prflow.queue.events import EventKind, PrEvent
from prflow.queue.gate import GateState, SlotAsk, SlotRequest, gate_workflow_id
from prflow.queue.jobs import (
    JoinedRun,
    JoinRun,
    PlanInput,
    PlannedJob,
    QueueJob,
    QueuePlan,
    build_request,
    queue_kinds,
)
from prflow.queue.kind import GATE_WORKFLOW
from prflow.queue.poll import OVERLAP, PollOutcome, PollQuery
from prflow.queue.repo_config import CONFIG_PATH, RepoConfig, parse_repo_config
from prflow.queue.rules import jobs_for_head
from prflow.queue.state import QueueState
from prflow.registry import KINDS
from prflow.repo_models import RepoSpec, ResolvedRange


@activity.defn(name="queue_plan")
@heartbeating
def plan_queue_run(request: PlanInput) -> QueuePlan:
    """What to run on the PR's current head, with each job's request built."""
    info = fetch_pull_request(request.pr)
    if info.state != "open":
        return QueuePlan(head_sha=info.head_sha, closed=True)
    rng = resolve_range(
        RepoSpec(location=info.clone_url, pr_number=request.pr.number),
        info.base_sha,
        info.head_sha,
    )
    available = queue_kinds(KINDS)
    try:
        config = parse_repo_config(_config_text(rng), list(available))
    except UserError as err:
        return QueuePlan(head_sha=rng.head_sha, skipped=err.message)
    settings = cached_settings()
    state = QueueState(
        pr=request.pr,
        queues=request.queues,
        last_reviewed_sha=request.last_reviewed_sha,
        requested=[job for job in request.requested if job in available],
    )
    skip = _skip_reason(config, rng, state)
    if skip is not None:
        return QueuePlan(head_sha=rng.head_sha, skipped=skip)
    kinds = jobs_for_head(state, rng.head_sha, config.jobs_to_run(settings.queue.jobs))
    job = QueueJob(
        pr=request.pr,
        head_sha=rng.head_sha,
        base_sha=rng.base_sha,
        since_sha=request.last_reviewed_sha,
        clone_url=info.clone_url,
        config=config,
        queues=request.queues,
    )
    planned = [
        PlannedJob(kind=kind, request=build_request(available[kind], job, settings))
        for kind in kinds
        if kind in available
    ]
    return QueuePlan(head_sha=rng.head_sha, jobs=planned, risk_threshold=config.risk_threshold)


def _config_text(rng: ResolvedRange) -> str | None:
    """``.prflow.toml`` at the head commit, or None when the repository has none."""
    repo = open_repo(rng.location)
    shown = run_git(
        ["show", f"{rng.head_sha}:{CONFIG_PATH}"], git_dir=repo.git_dir, ok_codes=(0, 128)
    )
    if shown.returncode != 0:
        return None
    try:
        return shown.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{CONFIG_PATH} is not UTF-8 text; save it as UTF-8") from None


def _skip_reason(config: RepoConfig, rng: ResolvedRange, state: QueueState) -> str | None:
    if not config.enabled:
        return f"{CONFIG_PATH}: enabled = false"
    if state.requested:
        return None  # a person asked: ignored paths do not apply
    paths = [change.path for change in changed_files(rng)]
    if config.only_ignored(paths):
        return f"only paths listed in ignore_paths changed ({len(paths)} files)"
    return None


@activity.defn(name="queue_request_slot")
async def request_slot(ask: SlotAsk) -> str:
    """Ask ``ask.org``'s gate for a slot, starting the gate if it is not running; its id."""
    capacity = cached_settings().queue.org_max_running
    request = SlotRequest(**ask.model_dump(), capacity=capacity)
    info = activity.info()
    gate_id = gate_workflow_id(ask.org, info.task_queue)
    await activity.client().start_workflow(
        GATE_WORKFLOW,
        GateState(org=ask.org, capacity=capacity),
        id=gate_id,
        task_queue=info.task_queue,
        start_signal="acquire",
        start_signal_args=[request],
        static_summary=f"job slots of {ask.org} ({capacity} at once)",
    )
    return gate_id


def conversation_of(event: PrEvent) -> PullEvent | None:
    """What a poll's event means to the PR's conversation: a head (``head:<sha>``, the id a
    webhook's synchronize has too, so the two dedupe) or a close."""
    if event.kind == EventKind.closed:
        return PullEvent(event_id=CLOSED_EVENT_ID, action=PullAction.closed)
    if event.kind == EventKind.head and event.head_sha:
        return PullEvent(
            event_id=head_event_id(event.head_sha),
            action=PullAction.synchronize,
            head_sha=event.head_sha,
        )
    return None


@activity.defn(name="queue_poll_org")
async def poll_org(query: PollQuery) -> PollOutcome:
    """List the org's PRs updated since the last poll and hand each to its PR workflow."""
    started = datetime.now(UTC)
    if query.since is not None:
        since = query.since - OVERLAP
    else:
        since = started - timedelta(seconds=query.first_lookback_seconds)
    from prflow.conversation.delivery import signal_conversation

    events = await updated_pull_events(query.org, since, on_progress=activity.heartbeat)
    client = activity.client()
    for event in events:
        await deliver(client, event, query.queues)
        talk = conversation_of(event)
        if talk is not None:
            await signal_conversation(client, event.pr, talk)
        activity.heartbeat()
    # A PR updated while we listed shows up again next time: its delivery id dedupes it.
    return PollOutcome(org=query.org, since=since, polled_until=started, delivered=len(events))


JOIN_HEARTBEAT_SECONDS = 5.0


@activity.defn(name="queue_join_run")
async def join_run(run: JoinRun) -> JoinedRun:
    """Wait for a job's run that another start path began first (``prflow review --post``
    before the webhook): the queue records its ending instead of running the head twice.

    Heartbeats while it waits, so a push that supersedes the head cancels the wait (never
    the other starter's run: it is theirs to cancel).
    """
    handle = activity.client().get_workflow_handle(run.workflow_id)
    waiting = asyncio.ensure_future(handle.result())
    try:
        while not waiting.done():
            activity.heartbeat()
            await asyncio.wait({waiting}, timeout=JOIN_HEARTBEAT_SECONDS)
        result: Any = waiting.result()
    except WorkflowFailureError as err:
        cause = err.cause
        raise ApplicationError(
            f"{run.workflow_id} failed: {getattr(cause, 'message', cause)}", non_retryable=True
        ) from None
    finally:
        if not waiting.done():
            waiting.cancel()
    return JoinedRun(result=result if isinstance(result, dict) else {})


QUEUE_ACTIVITIES = [plan_queue_run, request_slot, poll_org, join_run]
