"""What each task queue serves: the one place workflows and activities are listed.

Imports happen inside the functions so ``prflow --help`` does not load every
workflow module (and its dependencies) just to print usage.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from temporalio import activity

from prflow.config import Settings

WORKFLOWS: list[type] = []
"""Extra workflow classes registered on the main task queue (besides :func:`workflows`)."""


class QueueRole(StrEnum):
    """Task queues are split by the resource their activities consume."""

    MAIN = "main"  # workflows, git snapshots, static analysis, test runs
    LLM = "llm"  # model calls: rate-limited across the fleet
    GITHUB = "github"  # GitHub writes: separate so API quotas cannot stall analysis


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


def workflows() -> list[type]:
    """All workflow classes the main queue runs."""
    from workflows.impact import ImpactWorkflow
    from workflows.pr_checks import PrChecksWorkflow

    return [ImpactWorkflow, PrChecksWorkflow, *WORKFLOWS]


def activities_for(queue: str, settings: Settings) -> list[Callable[..., Any]]:
    """Activities the worker for ``queue`` registers."""
    from activities.agent_messages import compose_message
    from activities.github import resolve_pull_request, upsert_pr_comment
    from activities.github.checks import checks_report_activity, checks_snapshot
    from activities.impact_analysis import IMPACT_ACTIVITIES
    from activities.llm import llm_call, llm_configured
    from activities.repo_tools import resolve_range_activity, run_repo_tool

    role = role_of(queue, settings)
    by_role: dict[QueueRole, list[Callable[..., Any]]] = {
        QueueRole.MAIN: [
            compose_message,
            resolve_range_activity,
            run_repo_tool,
            *IMPACT_ACTIVITIES,
        ],
        QueueRole.LLM: [llm_call, llm_configured],
        QueueRole.GITHUB: [
            resolve_pull_request,
            upsert_pr_comment,
            checks_snapshot,
            checks_report_activity,
        ],
    }
    return [describe_worker, *by_role[role]]
