"""A run's task queues, as its starter routed it: workflows never read them from requests.

The starter (the CLI's runtime, the PR queue, a parent run) attaches the queue
names as a memo (see :mod:`prflow.task_queues`); a run started without one uses
the default rule on its own queue. Runs recorded before :data:`ROUTES_PATCH`
named their GitHub and model queues in the request (``github_task_queue``, each
plan's ``task_queue``): replaying them, the recorded names are kept.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.task_queues import MEMO_KEY, QueueNames, named_after, routing_memo

ROUTES_PATCH = "runtime-routes-queues-v1"
"""Patch: GitHub and model queues come from the run's routing, not from its request."""


def run_queues() -> QueueNames:
    """The queues this run was routed to (the memo, else the rule on its own queue)."""
    routed: QueueNames | None = workflow.memo_value(MEMO_KEY, None, type_hint=QueueNames)
    return routed if routed is not None else named_after(workflow.info().task_queue)


def github_queue(recorded: str | None) -> str | None:
    """Where GitHub activities run; ``recorded`` (the request's name) in older runs."""
    return run_queues().github if workflow.patched(ROUTES_PATCH) else recorded


def llm_queue(recorded: str | None) -> str | None:
    """Where model calls run; ``recorded`` (the plan's name) in older runs."""
    return run_queues().llm if workflow.patched(ROUTES_PATCH) else recorded


def child_memo(queues: QueueNames | None = None) -> dict[str, Any]:
    """The memo a child (or the next run after continue-as-new) inherits routing by."""
    return routing_memo(queues if queues is not None else run_queues())
