"""What each task queue serves, read from the kind declarations.

The platform's own workflows and activities (the agent child workflow, model
calls, repository tools, GitHub writes) serve every kind; each kind adds its
workflow and activities through its declaration in :mod:`prflow.registry`.
Imports happen inside the functions so ``prflow --help`` does not load every
workflow module (and its dependencies) just to print usage.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel
from temporalio import activity

from prflow.config import Settings
from prflow.kinds import KindDeclaration, QueueRole, import_path
from prflow.registry import KINDS

PLATFORM_WORKFLOWS: tuple[str, ...] = (
    "workflows.agent_workflow:AgentWorkflow",
    "workflows.blob_read:BlobReadWorkflow",
)
"""Workflows every kind may use: a child agent, and reading a stored report (on servers
without standalone activities, and for older clients; see ``workflows/blob_read.py``)."""

PLATFORM_ACTIVITIES: dict[QueueRole, tuple[str, ...]] = {
    QueueRole.MAIN: (
        "activities.agent_messages:compose_message",
        "activities.phase_cuts:record_phase_cut",
        "activities.repo_tools:resolve_range_activity",
        "activities.repo_tools:run_repo_tool",
        "activities.workspace:WORKSPACE_ACTIVITIES",
        "activities.test_runs:TEST_RUN_ACTIVITIES",
        "activities.blobs:read_blob_chunk",
    ),
    QueueRole.LLM: ("activities.llm:llm_call", "activities.llm:llm_configured"),
    QueueRole.GITHUB: (
        "activities.github:resolve_pull_request",
        "activities.github:upsert_pr_comment",
        "activities.github.draft_pr:DRAFT_PR_ACTIVITIES",
    ),
}


class WorkerInfo(BaseModel):
    """Who served an activity: lets operators (and tests) see which process is polling."""

    task_queue: str
    hostname: str
    pid: int


@activity.defn(name="prflow.describe_worker")
def describe_worker() -> WorkerInfo:
    """Report the serving process; registered on every queue as a liveness probe."""
    return WorkerInfo(
        task_queue=activity.info().task_queue,
        hostname=socket.gethostname(),
        pid=os.getpid(),
    )


def queue_names(settings: Settings) -> dict[QueueRole, str]:
    """The configured task-queue name for each role."""
    return {
        QueueRole.MAIN: settings.temporal.task_queue,
        QueueRole.LLM: settings.temporal.llm_task_queue,
        QueueRole.GITHUB: settings.temporal.github_task_queue,
    }


def role_of(queue: str, settings: Settings) -> QueueRole:
    for role, name in queue_names(settings).items():
        if name == queue:
            return role
    raise ValueError(f"{queue!r} is not one of the configured task queues")


def workflows(kinds: Sequence[KindDeclaration] = KINDS) -> list[type]:
    """Every workflow class the main queue runs: the platform's and each kind's."""
    paths = [*PLATFORM_WORKFLOWS]
    for kind in kinds:
        paths += [kind.workflow, *kind.extra_workflows]
    return [import_path(path) for path in dict.fromkeys(paths)]


def _flatten(found: Any) -> Iterable[Callable[..., Any]]:
    if isinstance(found, list | tuple):
        return list(found)
    return [found]


def activities_for(
    queue: str, settings: Settings, kinds: Sequence[KindDeclaration] = KINDS
) -> list[Callable[..., Any]]:
    """Activities the worker for ``queue`` registers: the platform's and each kind's."""
    role = role_of(queue, settings)
    paths = list(PLATFORM_ACTIVITIES.get(role, ()))
    for kind in kinds:
        paths += list(kind.activities.get(role, ()))
    found: dict[str, Callable[..., Any]] = {}
    for path in dict.fromkeys(paths):
        for function in _flatten(import_path(path)):
            found[activity_name(function)] = function
    return [describe_worker, *found.values()]


def activity_name(function: Callable[..., Any]) -> str:
    """The name an activity is registered under."""
    definition = getattr(function, "__temporal_activity_definition", None)
    return str(definition.name) if definition is not None else function.__name__
