"""Which task queues a run's work goes to: decided by whoever starts the run, not the request.

A run's requests say what to analyse; where its activities run depends on the
runtime that serves it (the configured queues of ``prflow.toml``, a command's
private queues, a warm worker's). The starter attaches the three names to the
run as a memo (:data:`MEMO_KEY`); a run started without one (a plain client
call) uses the default naming rule, :func:`named_after` its own queue. Children
a run starts get the same memo, so a whole run tree stays on one set of queues.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from prflow.config import Settings

MEMO_KEY = "prflow.queues"
"""The memo field holding a run's :class:`QueueNames` (visible in the Web UI's memo)."""


class QueueNames(BaseModel):
    """The task queues a run's work goes to: workflows, model calls, GitHub calls."""

    main: str
    llm: str
    github: str


def queue_names(settings: Settings) -> QueueNames:
    """The queues ``settings`` name (any names ``prflow.toml`` chose)."""
    temporal = settings.temporal
    return QueueNames(
        main=temporal.task_queue, llm=temporal.llm_task_queue, github=temporal.github_task_queue
    )


def named_after(main: str) -> QueueNames:
    """The default rule, ``<main>-llm`` and ``<main>-github``: what the shipped defaults,
    a command's private queues and a warm worker's queues all follow."""
    return QueueNames(main=main, llm=f"{main}-llm", github=f"{main}-github")


def routing_memo(queues: QueueNames) -> dict[str, Any]:
    """The memo a starter attaches so the run (and its children) use ``queues``."""
    return {MEMO_KEY: queues.model_dump()}


def recorded_queue() -> Any:
    """A request field that named a queue before the runtime routed runs: still read from
    older histories (their replays keep it), never written (a new request leaves it out)."""
    return Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Recorded by runs before runtime-routes-queues-v1; ignored since",
    )
