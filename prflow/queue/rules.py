"""How a PR's queue reacts to each event: pure functions over :class:`QueueState`.

The workflow calls these from its signal handler and main loop; keeping them
here lets the rules (idempotency, late deliveries, supersede, close) be
tested without Temporal.
"""

from __future__ import annotations

from enum import StrEnum

from prflow.kinds import head_run_id
from prflow.queue.events import EventKind, PrEvent
from prflow.queue.state import MAX_DELIVERIES, MAX_NOTES, MAX_RUNS, JobRun, QueueState


class Absorbed(StrEnum):
    duplicate = "duplicate"  # this delivery id was seen: nothing changes
    stale = "stale"  # older than what we know (a late delivery)
    same_head = "same_head"  # the head we already know: nothing new to run
    new_head = "new_head"  # a push: supersedes a run on an older head
    requested = "requested"  # a comment asked for jobs
    closed = "closed"


def absorb(state: QueueState, event: PrEvent) -> Absorbed:
    """Fold ``event`` into ``state`` and say what it changed."""
    if event.delivery_id in state.deliveries:
        return Absorbed.duplicate
    state.deliveries = [*state.deliveries, event.delivery_id][-MAX_DELIVERIES:]
    if event.kind is EventKind.closed:
        state.closed = True
        return Absorbed.closed
    if event.kind is EventKind.command:
        state.requested = list(dict.fromkeys([*state.requested, *event.jobs]))
        return Absorbed.requested
    known = state.head_updated_at
    if event.updated_at is not None and known is not None and event.updated_at < known:
        return Absorbed.stale
    if event.updated_at is not None:
        state.head_updated_at = event.updated_at
    state.closed = False  # a head event after a close means the PR was reopened
    if event.head_sha is not None and event.head_sha == state.head_sha:
        return Absorbed.same_head
    state.head_sha = event.head_sha or state.head_sha
    return Absorbed.new_head


def has_work(state: QueueState) -> bool:
    """Whether a run is due: an unreviewed (or unknown) head, or requested jobs."""
    if state.closed:
        return False
    return (
        bool(state.requested)
        or state.head_sha is None
        or (state.head_sha != state.last_reviewed_sha)
    )


def superseded(state: QueueState, running_head: str) -> bool:
    """A run on ``running_head`` must stop: the PR closed or moved on."""
    return state.closed or (state.head_sha is not None and state.head_sha != running_head)


def jobs_for_head(state: QueueState, head_sha: str, configured: list[str]) -> list[str]:
    """The configured jobs for a new head, plus what comments asked for, each once."""
    wanted = [] if head_sha == state.last_reviewed_sha else list(configured)
    return list(dict.fromkeys([*wanted, *state.requested]))


def finish_head(state: QueueState, head_sha: str, ran: list[str]) -> None:
    """Every job of the run on ``head_sha`` ended: the next run starts from here."""
    state.last_reviewed_sha = head_sha
    state.requested = [job for job in state.requested if job not in ran]


def record(state: QueueState, run: JobRun) -> None:
    state.runs = [*state.runs, run][-MAX_RUNS:]


def note(state: QueueState, text: str) -> None:
    state.notes = [*state.notes, text][-MAX_NOTES:]


def child_workflow_id(kind: str, state: QueueState, head_sha: str) -> str:
    """``impact:acme/api#12@1a2b3c4d5e6f``: one id per PR, job and head (the CLI names a
    run of the same head the same way, so the two join)."""
    return head_run_id(kind, state.pr.slug, head_sha)
