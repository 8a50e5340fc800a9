"""Raises that outlive the agents running when they came: a raise lifts a phase, not only
the agents of it that happen to run at that moment.

An operator raising a run's caps means the run's work, so an agent that starts later in
the same phase (the next refactor task's executor, a retry, a planner re-asked, a
reviewer queued behind others) starts with the raise applied, exactly as the agents
running then received it: each raise addressed to the agent's name, its phase, or to
every phase adds its amounts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from prflow.agent.budget import BudgetCaps, BudgetRaise, raised
from prflow.agent.plan import PhasePlan


def addresses(change: BudgetRaise, *, name: str | None, phase: str) -> bool:
    """Whether ``change`` is meant for an agent called ``name`` (None: any agent of
    ``phase``, such as one not yet named) in ``phase``."""
    return change.phase is None or change.phase in (phase, name)


def caps_after(
    caps: BudgetCaps, raises: Sequence[BudgetRaise], *, name: str | None, phase: str
) -> BudgetCaps:
    """``caps`` lifted by every raise in ``raises`` addressed to this agent."""
    for change in raises:
        if addresses(change, name=name, phase=phase):
            caps = raised(caps, change)
    return caps


@overload
def plan_after(plan: PhasePlan, raises: Sequence[BudgetRaise], phase: str) -> PhasePlan: ...
@overload
def plan_after(plan: None, raises: Sequence[BudgetRaise], phase: str) -> None: ...
def plan_after(
    plan: PhasePlan | None, raises: Sequence[BudgetRaise], phase: str
) -> PhasePlan | None:
    """``plan`` for agents of ``phase`` started from now on (None stays None)."""
    if plan is None or not raises:
        return plan
    caps = caps_after(plan.caps, raises, name=None, phase=phase)
    return plan.model_copy(update={"caps": caps})
