"""A job kind, declared once: what the worker, the CLI, the replay tests and costs read.

Every kind (impact, review, PR checks, the org queue, ...) is one
:class:`KindDeclaration` in its own package, listed once in
:mod:`prflow.registry` (whose line also names the kind's CLI commands, so the
CLI lists them without importing the kind). The worker registers each kind's
workflow and activities on the queues named here; the CLI starts runs by the
kind's name and id function; the replay tests expect committed histories of every kind;
``prflow costs`` knows the kinds and their phases.

Workflow classes and activities live outside the domain package, so a
declaration names them by import path (``"workflows.impact:ImpactWorkflow"``);
the worker imports them, the CLI never needs to. A test checks every path
resolves and that each workflow's registered name is the kind's name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel
from temporalio.common import SearchAttributeKey

if TYPE_CHECKING:
    from prflow.pr_identifier import PullRequestRef


class QueueRole(StrEnum):
    """Task queues are split by the resource their activities consume."""

    MAIN = "main"  # workflows, git snapshots, static analysis, test runs
    LLM = "llm"  # model calls: rate-limited across the fleet
    GITHUB = "github"  # GitHub writes: separate so API quotas cannot stall analysis


class ModelTier(StrEnum):
    budget = "budget"
    mid = "mid"
    premium = "premium"


@dataclass(frozen=True)
class PhaseDefaults:
    """Defaults of one model phase; unset caps fall back to the ``[budget]`` settings."""

    tier: ModelTier = ModelTier.mid
    usd: float | None = None
    tokens: int | None = None
    iterations: int | None = None
    wall_clock_seconds: float | None = None
    max_tokens: int = 8192


@dataclass(frozen=True)
class KindDeclaration:
    """Everything that makes a job kind runnable, in one place."""

    name: str
    summary: str
    workflow: str
    """Import path of the workflow class, ``module:Class``; its defn name is ``name``."""
    input_type: type[BaseModel]
    result_type: type[BaseModel]
    workflow_id: Callable[[Any], str]
    """A stable id from the input: re-running the same request attaches to the run in flight."""
    activities: Mapping[QueueRole, Sequence[str]] = field(default_factory=dict)
    """Import paths (``module:attr``) of activity functions or lists of them, per queue."""
    search_attributes: Sequence[SearchAttributeKey[Any]] = ()
    phases: Mapping[str, PhaseDefaults] = field(default_factory=dict)
    """Model phases and their budget defaults, e.g. ``{"agent": PhaseDefaults(...)}``."""
    extra_workflows: Sequence[str] = ()
    """Workflows the kind starts as children (they run on its main queue)."""
    queue_job: str | None = None
    """Import path of ``(prflow.queue.jobs.QueueJob, Settings) -> input_type``: set when the
    org-wide PR queue may run this kind on each new head of a PR (``[queue] jobs``)."""


def import_path(path: str) -> Any:
    """The object named by ``module:attr``."""
    import importlib

    module_name, _, attr = path.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module


def head_run_id(kind: str, pr_slug: str, head_sha: str) -> str:
    """``review:acme/api#12@1a2b3c4d5e6f``: the one run of ``kind`` for a PR's head.

    Every start path (the CLI, the queue's job, a rerun) names a PR run this
    way once it knows the head, so they all join one workflow on one server.
    """
    return f"{kind}:{pr_slug}@{head_sha[:12]}"


def repository_run_id(kind: str, location: str, what: str) -> str:
    """``refactor:api-1a2b3c:<what>``: a run of ``kind`` on the repository at ``location``.

    The folder name makes the id readable; a short hash of the location keeps two
    clones named alike apart.
    """
    name = PurePath(location.rstrip("/")).name.removesuffix(".git") or "repo"
    digest = hashlib.sha1(location.encode()).hexdigest()[:6]
    return f"{kind}:{name}-{digest}:{what}"


def change_run_id(
    kind: str,
    *,
    pr_slug: str | None,
    pr_head_sha: str | None,
    repo: str | None,
    base: str | None,
    head: str | None,
) -> str:
    """The run of ``kind`` for a change: ``impact:acme/api#12@1a2b3c4d5e6f`` for a PR at a
    known head (every starter then joins one run), ``impact:acme/api#12`` without one,
    ``impact:api-1a2b3c:main..HEAD`` for a range of a repository.

    Named after what was asked, not what it resolved to: the same command run
    twice attaches to the run in flight; the result says which SHAs it read.
    """
    if pr_slug is not None and pr_head_sha:
        return head_run_id(kind, pr_slug, pr_head_sha)
    if pr_slug is not None:
        return f"{kind}:{pr_slug}"
    span = f"{base or 'default'}..{head or 'HEAD'}"
    return repository_run_id(kind, repo or ".", span)


class ChangeRequest(Protocol):
    """What every request about a change carries: a PR, or a repository and a range."""

    @property
    def pull_request(self) -> PullRequestRef | None: ...

    @property
    def repo(self) -> str | None: ...

    @property
    def base(self) -> str | None: ...

    @property
    def head(self) -> str | None: ...


def change_request_run_id(
    kind: str, request: ChangeRequest, *, pr_head_sha: str | None = None
) -> str:
    """:func:`change_run_id` of a request about a change, for every kind that takes one.

    ``pr_head_sha`` names the run after the PR's head when the starter knew it; a kind
    that has one run per PR whatever its head leaves it out.
    """
    pr = request.pull_request
    return change_run_id(
        kind,
        pr_slug=pr.slug if pr is not None else None,
        pr_head_sha=pr_head_sha,
        repo=request.repo,
        base=request.base,
        head=request.head,
    )
