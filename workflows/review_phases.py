"""Bookkeeping of a review's model phases: agent specs with their share of a phase's caps,
and how each phase ended (ran, cut by its cap, failed, skipped) for progress and the report.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import BaseModel

    from prflow.agent.budget import Spend
    from prflow.agent.messages import PreparedPrompt
    from prflow.agent.outcome import AgentOutcome, StopReason
    from prflow.agent.state import AgentSpec, RepoToolBackend, spec_from_prompt
    from prflow.repo_models import ResolvedRange
    from prflow.review.budgets import UnspentPool, remaining, shared
    from prflow.review.depth_limits import REVIEWER_PHASES, ReviewSize, pass_tokens
    from prflow.review.models import IntakeResult, SemanticAnatomy
    from prflow.review.run_models import WORKFLOW_KIND, ReviewPhase, ReviewRequest
    from prflow.review.stage_models import FactsRefs, PhaseOutcome, ReviewScope
    from prflow.run_progress import PhaseState
    from workflows.run_kit import RunKit

CUT_STOPS = frozenset(
    {StopReason.iterations, StopReason.wall_clock, StopReason.budget_usd, StopReason.budget_tokens}
)
REPORTED_PHASES: tuple[str, ...] = (
    ReviewPhase.intake,
    ReviewPhase.intake_escalation,
    ReviewPhase.anatomy,
    ReviewPhase.planning,
    ReviewPhase.reviewers,
    ReviewPhase.investigations,
    ReviewPhase.adversary,
    ReviewPhase.cross_ref,
    ReviewPhase.deep_dives,
    ReviewPhase.coverage,
    ReviewPhase.gap_reviewers,
)
ON_DEMAND = frozenset(
    {
        ReviewPhase.intake_escalation,
        ReviewPhase.investigations,
        ReviewPhase.deep_dives,
        ReviewPhase.gap_reviewers,
    }
)
"""Phases that run only when asked for: not listed as skipped when nothing asked."""
PROMPT_TIMEOUT = timedelta(minutes=5)
UNSPENT_FLOWS = "review-unspent-budget-flows-v1"
"""Patch: money a phase leaves unspent is granted to the agents of later phases."""


@dataclass
class ReviewRun:
    """What every phase after anatomy reads."""

    request: ReviewRequest
    range: ResolvedRange
    scope: ReviewScope
    facts: FactsRefs
    intake: IntakeResult
    semantic: SemanticAnatomy | None = None
    hints: list[str] = field(default_factory=list)
    size: ReviewSize | None = None
    """The reviewable change's size when the review's bounds follow it (patch
    ``review-sized-to-the-change-v1``); None: the depth's bounds."""

    def tools(self, focus: Sequence[str] = (), hops: int | None = None) -> RepoToolBackend:
        """The repository tools on what this review reads, optionally with a focus."""
        return RepoToolBackend(
            range=self.scope.review_range, focus_paths=list(focus), max_reads_outside_focus=hops
        )


class PhaseBook:
    """Each model phase's outcome so far, and the specs of its agents."""

    def __init__(self, kit: RunKit) -> None:
        self.kit = kit
        self.outcomes: dict[str, PhaseOutcome] = {}
        self.pool = UnspentPool()
        self.remarks: dict[str, list[str]] = {}
        """What the report says of a phase that ran (agents that submitted at their share,
        reviewers the depth's bounds did not start)."""
        self.bounded = False
        """Set by the workflow (patch ``review-bounded-by-depth-v1``): the plans' token caps are
        the depth's, a reviewer's is its own (not a fraction), and agents are told theirs."""

    def spec(
        self,
        request: ReviewRequest,
        prompt: PreparedPrompt,
        *,
        name: str,
        phase: str,
        terminal: str,
        backend: RepoToolBackend | None = None,
        fraction: float = 1.0,
        after_spend: bool = False,
        parent_tools: Sequence[str] = (),
        rest_share: float = 1.0,
    ) -> AgentSpec:
        """An agent of ``phase`` with ``fraction`` of the phase's caps, or (``after_spend``)
        with what its earlier agents left of them."""
        plan = request.plans[phase]
        caps = (
            remaining(plan.caps, self.spent(phase)) if after_spend else shared(plan.caps, fraction)
        )
        if workflow.patched(UNSPENT_FLOWS):
            share = 1.0 if after_spend else fraction
            extra = self.pool.grant(name, caps.usd, share, within_phase=after_spend)
            caps = caps.model_copy(update={"usd": round(caps.usd + extra, 6)})
        if self.bounded and phase in REVIEWER_PHASES:
            caps = caps.model_copy(update={"tokens": plan.caps.tokens})
        elif self.bounded and after_spend and rest_share < 1.0:
            caps = caps.model_copy(update={"tokens": pass_tokens(caps.tokens, rest_share)})
        pr = request.pull_request
        return spec_from_prompt(
            prompt,
            name=name,
            workflow_kind=WORKFLOW_KIND,
            phase=phase,
            plan=plan.model_copy(update={"caps": caps}),
            terminal_tool=terminal,
            tool_backend=backend,
            repo=f"{pr.owner}/{pr.repo}" if pr else None,
            pr_number=pr.number if pr else None,
            parent_tools=list(parent_tools),
            tells_share=self.bounded,
        )

    async def ask(
        self,
        run: ReviewRun,
        *,
        step: str,
        phase: str,
        name: str,
        prepare: Callable[[Any], Awaitable[PreparedPrompt]] | Callable[[Any], PreparedPrompt],
        prompt_input: BaseModel,
        terminal: str,
        backend: RepoToolBackend | None = None,
        child: bool = False,
        after_spend: bool = False,
        rest_share: float = 1.0,
    ) -> AgentOutcome:
        """One agent, start to end: its prompt prepared by ``prepare`` (an activity), run
        inline or as a child workflow, its outcome folded into ``phase``. ``rest_share``:
        the part of what the phase has left that this agent's tokens may use (bounded
        reviews keep some for a layer agent's later passes)."""
        prompt: PreparedPrompt = await self.kit.step(
            step, prepare, prompt_input, timeout=PROMPT_TIMEOUT
        )
        spec = self.spec(
            run.request,
            prompt,
            name=name,
            phase=phase,
            terminal=terminal,
            backend=backend,
            after_spend=after_spend,
            rest_share=rest_share,
        )
        if child:
            outcome = await self.kit.run_child_agent(spec)
        else:
            outcome = await self.kit.run_inline_agent(spec)
        self.note(phase, outcome)
        return outcome

    def spent(self, phase: str) -> Spend:
        outcome = self.outcomes.get(phase)
        return outcome.spent if outcome else Spend()

    def cut(self, phase: str) -> bool:
        outcome = self.outcomes.get(phase)
        return outcome is not None and outcome.state == PhaseState.failed

    def note(self, phase: str, outcome: AgentOutcome) -> None:
        """Fold one agent's outcome into its phase: its spend, and a cut or failure."""
        if workflow.patched(UNSPENT_FLOWS):
            self.pool.settle(outcome.name, outcome.spent.usd)
        if self.bounded and outcome.stop == StopReason.terminal_tool and outcome.detail:
            self.remark(phase, f"{outcome.name} {outcome.detail}")
        current = self.outcomes.get(phase) or PhaseOutcome(name=phase, state=PhaseState.done)
        state, detail = current.state, current.detail
        if outcome.stop in CUT_STOPS:
            state, detail = PhaseState.failed, f"cut: {outcome.name} stopped ({outcome.detail})"
        elif outcome.stop == StopReason.llm_error:
            state, detail = PhaseState.failed, f"{outcome.name}: model call failed"
        self.outcomes[phase] = PhaseOutcome(
            name=phase, state=state, detail=detail, spent=current.spent.plus(outcome.spent)
        )

    def remark(self, phase: str, text: str) -> None:
        self.remarks.setdefault(phase, []).append(text)

    def stop(self, phase: str, detail: str) -> None:
        """Mark ``phase`` cut without running it (its budget was spent)."""
        self.outcomes[phase] = PhaseOutcome(
            name=phase, state=PhaseState.failed, detail=detail, spent=self.spent(phase)
        )

    def skip(self, phase: str, why: str, step: str) -> None:
        self.outcomes[phase] = PhaseOutcome(name=phase, state=PhaseState.skipped, detail=why)
        self.show(step, [phase])

    def show(self, step: str, phases: Sequence[str], done_detail: str | None = None) -> None:
        """Set the progress ``step`` from its phases' outcomes."""
        outcomes = [self.outcomes[p] for p in phases if p in self.outcomes]
        if not outcomes:
            return
        failed = [o for o in outcomes if o.state == PhaseState.failed]
        if failed:
            self.kit.set(step, PhaseState.failed, failed[0].detail)
        elif all(o.state == PhaseState.skipped for o in outcomes):
            self.kit.set(step, PhaseState.skipped, outcomes[0].detail)
        else:
            usd = sum(o.spent.usd for o in outcomes)
            self.kit.set(step, PhaseState.done, done_detail or f"${usd:.4f}")

    def report(self, model: bool) -> list[PhaseOutcome]:
        """Every phase as the report lists it: ran, cut, or skipped and why."""
        why = "no model configured (static mode)" if not model else "not reached"
        return [
            self._remarked(self.outcomes.get(phase))
            or PhaseOutcome(name=phase, state=PhaseState.skipped, detail=why)
            for phase in REPORTED_PHASES
            if phase in self.outcomes or phase not in ON_DEMAND
        ]

    def _remarked(self, outcome: PhaseOutcome | None) -> PhaseOutcome | None:
        """``outcome`` with its remarks as the detail of a phase that ran without one."""
        remarks = self.remarks.get(outcome.name, []) if outcome is not None else []
        if outcome is None or not remarks or outcome.detail or outcome.state != PhaseState.done:
            return outcome
        shown = "; ".join(dict.fromkeys(remarks[:6])) + ("; ..." if len(remarks) > 6 else "")
        return outcome.model_copy(update={"detail": shown})

    def names(self, state: PhaseState, model: bool) -> list[str]:
        return [o.name for o in self.report(model) if o.state == state]
