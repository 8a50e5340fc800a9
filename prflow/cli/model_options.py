"""The model options the agent commands share, checked once and turned into phase plans.

``impact``, ``review``, ``docsync`` and ``refactor`` all take ``--no-llm``, ``--model``,
``--budget-usd``, ``--budget-wait`` and (some of them) ``--max-iterations`` and
``--time-limit``. Each number is refused in one line before any plan is built, so a
value the plan's own validation would reject (``inf``, a cap above the product's
bounds) never surfaces as a traceback, whichever command it was given to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prflow.agent.plan import PhasePlan
from prflow.agent.planning import phase_plan, phase_plans
from prflow.cli.numbers import check_number
from prflow.config import Settings
from prflow.kinds import KindDeclaration
from prflow.limits import MAX_ITERATIONS, MAX_SECONDS, MAX_USD


@dataclass(frozen=True)
class ModelOptions:
    """What the command line said about the model; ``None`` leaves settings and defaults."""

    enabled: bool = True
    model: str | None = None
    budget_usd: float | None = None
    max_iterations: int | None = None
    time_limit: float | None = None
    budget_wait: float | None = None

    def __post_init__(self) -> None:
        check_number("--budget-usd", self.budget_usd, MAX_USD, "5")
        check_number("--max-iterations", self.max_iterations, MAX_ITERATIONS, "30")
        check_number("--time-limit", self.time_limit, MAX_SECONDS, "180")
        check_number("--budget-wait", self.budget_wait, MAX_SECONDS, "300")

    def plan(self, settings: Settings, kind: KindDeclaration, phase: str) -> PhasePlan:
        """The one model phase of a single-agent command (impact, docsync)."""
        return phase_plan(
            settings,
            kind,
            phase,
            enabled=self.enabled,
            model=self.model,
            budget_usd=self.budget_usd,
            max_iterations=self.max_iterations,
            time_limit=self.time_limit,
            budget_wait=self.budget_wait,
        )

    def plans(
        self, settings: Settings, kind: KindDeclaration, phases: Iterable[str]
    ) -> dict[str, PhasePlan]:
        """Every phase of a multi-agent command (review, refactor); ``--budget-usd`` caps the
        whole run."""
        return phase_plans(
            settings,
            kind,
            phases,
            enabled=self.enabled,
            budget_usd=self.budget_usd,
            budget_wait=self.budget_wait,
        )
