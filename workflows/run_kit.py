"""The run kit: what every kind's workflow needs besides its own phases.

:class:`RunKit` keeps a run's phase progress, its agents (inline or child
workflows) and their budgets, tags the run for the Web UI and runs activities
with the platform's timeouts, retries and heartbeats. :class:`KindWorkflow`
gives a workflow class the handlers every kind answers: the ``progress`` and
``spend`` queries, the ``raise_budget`` update and the ``agent_progress``
signal child agents report through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.github import upsert_pr_comment
    from prflow import search_attributes as sa
    from prflow.agent.budget import BudgetBook, BudgetRaise, BudgetStatus, PhaseBudget
    from prflow.agent.outcome import AgentOutcome
    from prflow.agent.raises import caps_after
    from prflow.agent.state import AgentRequest, AgentSpec, AgentState, child_agent_id
    from prflow.errors import USER_ERROR_TYPE
    from prflow.github_models import CommentUpsertInput, CommentUpsertResult
    from prflow.pr_identifier import PullRequestRef
    from prflow.run_handlers import PROGRESS_QUERY, RAISE_BUDGET_UPDATE, SPEND_QUERY
    from prflow.run_progress import AgentProgress, PhaseProgress, PhaseState, RunProgress
    from workflows.agent_loop import AgentLoop
    from workflows.agent_workflow import AgentWorkflow
    from workflows.budget_raises import take_raise
    from workflows.child_reports import ChildReports
    from workflows.child_tags import child_search_attributes
    from workflows.routing import child_memo

_R = TypeVar("_R")

STEP_RETRY = RetryPolicy(maximum_attempts=3, non_retryable_error_types=["UserError"])
NETWORK_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=6,
    non_retryable_error_types=["UserError"],
)
HEARTBEAT_TIMEOUT = timedelta(seconds=30)
"""A worker killed mid-activity costs the run about this long before another one retries."""


class RunKit:
    """Phases, agents, budgets and Web UI attributes of one run."""

    def __init__(self, kind: str, phases: Sequence[str]) -> None:
        self.kind = kind
        self.phases = [PhaseProgress(name=name) for name in phases]
        self.budget = BudgetBook()
        self._inline: dict[str, AgentLoop] = {}
        self._children: dict[str, AgentProgress] = {}
        self._child_ids: dict[str, str] = {}
        self.deadline: datetime | None = None
        self.raises: list[BudgetRaise] = []
        """Raises taken so far: agents that start later get them too."""
        self.on_agent_request: Callable[[AgentRequest], None] | None = None
        """What the kind does when a child agent calls one of its parent tools."""

    # ------------------------------------------------------------------ deadline

    def start_deadline(self, seconds: float | None) -> None:
        """Bound the whole run: from now, ``seconds`` (None: no deadline)."""
        if seconds is not None:
            self.deadline = workflow.now() + timedelta(seconds=seconds)

    def time_left(self) -> timedelta | None:
        """Time until the run's deadline (never negative), or None without one."""
        if self.deadline is None:
            return None
        return max(self.deadline - workflow.now(), timedelta(0))

    def past_deadline(self) -> bool:
        left = self.time_left()
        return left is not None and left <= timedelta(0)

    def within_deadline(self, spec: AgentSpec) -> AgentSpec:
        """``spec`` with its wall-clock cap no later than the run's deadline: an agent
        still working then stops like a capped one and the run reports what it has."""
        left = self.time_left()
        if left is None or spec.plan.caps.wall_clock_seconds <= left.total_seconds():
            return spec
        caps = spec.plan.caps.model_copy(update={"wall_clock_seconds": left.total_seconds()})
        return spec.model_copy(update={"plan": spec.plan.model_copy(update={"caps": caps})})

    # ------------------------------------------------------------------ Web UI

    def tag(self, *, repo: str | None, pr: int | None) -> None:
        """Set Kind, Repo and PR, so every run is findable however it was started."""
        pairs: list[Any] = [sa.KIND.value_set(self.kind)]
        if repo:
            pairs.append(sa.REPO.value_set(repo))
        if pr is not None:
            pairs.append(sa.PR.value_set(pr))
        workflow.upsert_search_attributes(pairs)

    def note_cost(self) -> None:
        workflow.upsert_search_attributes([sa.COST_USD.value_set(self.status().total_usd)])

    # ------------------------------------------------------------------ phases

    def set(self, phase: str, state: PhaseState, detail: str = "") -> None:
        """Record a phase's state; entering ``running`` also sets the Web UI's Phase."""
        entering = False
        for item in self.phases:
            if item.name == phase:
                entering = state == PhaseState.running and item.state != PhaseState.running
                item.state, item.detail = state, detail
        if entering:
            workflow.upsert_search_attributes([sa.PHASE.value_set(phase)])

    def refusal(self, phase: str, err: ActivityError) -> str | None:
        """The message of a step that failed on the user's mistake (a branch that exists,
        a tree not at base), marking ``phase`` failed with it; None for any other failure,
        which the caller re-raises."""
        cause = err.cause
        if not isinstance(cause, ApplicationError) or cause.type != USER_ERROR_TYPE:
            return None
        self.set(phase, PhaseState.failed, cause.message[:200])
        return cause.message

    async def step(
        self,
        phase: str,
        activity: Callable[[Any], Awaitable[_R]] | Callable[[Any], _R],
        arg: Any,
        *,
        timeout: timedelta,  # noqa: ASYNC109 - an activity's start-to-close limit
        retry: RetryPolicy = STEP_RETRY,
        task_queue: str | None = None,
        summary: str | None = None,
        heartbeat: timedelta | None = HEARTBEAT_TIMEOUT,
        local: bool = False,
    ) -> _R:
        """Mark ``phase`` running and run one activity with the platform's policies.

        ``local``: run it as a local activity, in this workflow's worker, without a trip
        through the server's task queue and a workflow task after it (a short step on
        the workflow's own queue: a few tens of milliseconds saved per step on a small
        PR). A local activity cannot heartbeat; a crashed worker retries it whole.
        """
        self.set(phase, PhaseState.running)
        name = getattr(getattr(activity, "__temporal_activity_definition", None), "name", "")
        if local:
            done: _R = await workflow.execute_local_activity(
                activity,  # type: ignore[arg-type]
                arg,
                start_to_close_timeout=timeout,
                retry_policy=retry,
                summary=summary or f"{phase}: {name}",
            )
            return done
        result: _R = await workflow.execute_activity(
            activity,  # type: ignore[arg-type]
            arg,
            task_queue=task_queue,
            start_to_close_timeout=timeout,
            heartbeat_timeout=heartbeat,
            retry_policy=retry,
            summary=summary or f"{phase}: {name}",
        )
        return result

    async def publish_sticky_comment(
        self,
        pr: PullRequestRef | None,
        *,
        asked: bool,
        marker: str,
        body_key: str,
        task_queue: str | None,
    ) -> CommentUpsertResult | None:
        """The ``publish`` phase of a kind with one sticky PR comment (found by ``marker``)."""
        if not (asked and pr):
            self.set("publish", PhaseState.skipped, "not asked to post")
            return None
        comment: CommentUpsertResult = await self.step(
            "publish",
            upsert_pr_comment,
            CommentUpsertInput(pr=pr, marker=marker, body_key=body_key),
            task_queue=task_queue,
            timeout=timedelta(seconds=60),
            retry=NETWORK_RETRY,
            summary=f"upsert {self.kind} comment on {pr.slug}",
        )
        self.set("publish", PhaseState.done, comment.url)
        return comment

    # ------------------------------------------------------------------ agents

    def start_agent(self, spec: AgentSpec, caps_source: PhaseBudget) -> AgentState:
        """The first state of an agent whose budget the run's book holds."""
        state = AgentState.start(spec, caps_source)
        state.budget = caps_source  # the very object the book raises
        return state

    def open_budget(self, spec: AgentSpec) -> PhaseBudget:
        group = spec.phase if spec.phase != spec.name else None
        caps = caps_after(spec.plan.caps, self.raises, name=spec.name, phase=spec.phase)
        return self.budget.open(spec.name, caps, group=group)

    async def run_inline_agent(self, spec: AgentSpec) -> AgentOutcome:
        """Run an agent inside this workflow (short agents: no continue-as-new)."""
        spec = self.within_deadline(spec)
        state = self.start_agent(spec, self.open_budget(spec))
        loop = AgentLoop(state, on_turn=self._after_inline_turn)
        self._inline[spec.name] = loop
        outcome = await loop.run()
        assert outcome is not None, "an inline agent never pauses"
        return outcome

    async def run_child_agent(
        self, spec: AgentSpec, *, parent_id: str | None = None
    ) -> AgentOutcome:
        """Run an agent as a child workflow, which continues-as-new as it needs to.

        ``parent_id`` names this workflow as its input knows it (default: its own id), so
        a workflow whose id is derived from its input replays under any id."""
        spec = self.within_deadline(spec)
        budget = self.open_budget(spec)
        parent = parent_id or workflow.info().workflow_id
        spec = spec.model_copy(update={"parent_workflow_id": parent})
        child_id = child_agent_id(parent, spec.name)
        self._child_ids[spec.name] = child_id
        self._children[spec.name] = AgentProgress(
            name=spec.name, phase=spec.phase, caps=budget.caps
        )
        outcome = await workflow.execute_child_workflow(
            AgentWorkflow.run,
            AgentState.start(spec, budget),
            id=child_id,
            parent_close_policy=ParentClosePolicy.TERMINATE,
            memo=child_memo(),
            search_attributes=child_search_attributes(
                self.kind,
                sa.ROLE_AGENT,
                before=TypedSearchAttributes([SearchAttributePair(sa.KIND, self.kind)]),
            ),
            static_summary=f"{self.kind} agent {spec.name}",
        )
        budget.spent = outcome.spent
        progress = self._children[spec.name]
        progress.spent, progress.turns = outcome.spent, outcome.iterations
        progress.state = PhaseState.done if outcome.completed else PhaseState.failed
        progress.detail = outcome.detail
        self.note_cost()
        return outcome

    async def run_child_agents(
        self,
        specs: Sequence[AgentSpec],
        *,
        max_concurrency: int,
        on_done: Callable[[AgentOutcome], Awaitable[None]] | None = None,
    ) -> list[AgentOutcome]:
        """Run agents as children, at most ``max_concurrency`` at once; ``on_done`` sees each
        outcome as soon as it arrives, in completion order."""
        gate = asyncio.Semaphore(max(1, max_concurrency))

        async def one(spec: AgentSpec) -> AgentOutcome:
            async with gate:
                outcome = await self.run_child_agent(spec)
            if on_done is not None:
                await on_done(outcome)
            return outcome

        return list(await asyncio.gather(*(one(spec) for spec in specs)))

    def child_progress(self, name: str) -> AgentProgress | None:
        """The last that is known of child agent ``name`` (its outcome, once it finished)."""
        return self._children.get(name)

    def record_child_progress(self, progress: AgentProgress) -> None:
        """A child agent's report after a turn: mirror its spend in the run's book."""
        self._children[progress.name] = progress
        budget = self.budget.phases.get(progress.name)
        if budget is not None:
            budget.spent = progress.spent
            if progress.caps is not None:
                budget.caps = progress.caps

    def agent_requested(self, request: AgentRequest) -> None:
        """A child agent asked for something (see ``AgentSpec.parent_tools``)."""
        if self.on_agent_request is not None:
            self.on_agent_request(request)

    async def _after_inline_turn(self) -> None:
        self.note_cost()

    # ------------------------------------------------------------------ queries/updates

    def status(self) -> BudgetStatus:
        return self.budget.status()

    def progress(self) -> RunProgress:
        agents = [loop.progress() for loop in self._inline.values()]
        agents += list(self._children.values())
        waiting = next((a.waiting_for_budget for a in agents if a.waiting_for_budget), None)
        return RunProgress(
            kind=self.kind,
            phases=self.phases,
            agents=agents,
            spend=self.status(),
            waiting_for_budget=waiting,
        )

    def validate_raise(self, change: BudgetRaise) -> None:
        if not self.budget.knows(change.phase):
            known = ", ".join(sorted(self.budget.phases)) or "none yet"
            raise ValueError(f"unknown phase {change.phase!r}; known phases: {known}")

    async def raise_budget(self, change: BudgetRaise) -> BudgetStatus:
        """Lift caps in the book (inline agents share it), pass the raise to child agents, and
        keep it for agents that start later."""
        take_raise(self.budget, self.raises, change)
        for name, child_id in self._child_ids.items():
            progress = self._children.get(name)
            budget = self.budget.phases.get(name)
            if progress is None or progress.state != PhaseState.running:
                continue
            if budget is not None and budget.answers_to(change.phase):
                handle = workflow.get_external_workflow_handle(child_id)
                await handle.signal(AgentWorkflow.raise_budget, change)
        return self.status()


class KindWorkflow(ChildReports):
    """Base of every kind's workflow class: the handlers operators and the CLI use (and, from
    :class:`ChildReports`, those its child agents report to)."""

    kit: RunKit

    @workflow.query(name=PROGRESS_QUERY)
    def progress(self) -> RunProgress:
        return self.kit.progress()

    @workflow.query(name=SPEND_QUERY)
    def spend(self) -> BudgetStatus:
        return self.kit.status()

    @workflow.update(name=RAISE_BUDGET_UPDATE)
    async def raise_budget(self, change: BudgetRaise) -> BudgetStatus:
        return await self.kit.raise_budget(change)

    @raise_budget.validator
    def _validate_raise(self, change: BudgetRaise) -> None:
        self.kit.validate_raise(change)
