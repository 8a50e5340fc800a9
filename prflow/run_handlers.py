"""The names under which every kind's run answers its clients (the CLI, operators' tools).

Declared once so the workflow's handlers and the callers cannot drift apart. Callers
outside workflow code use these names instead of the handler methods because importing
the workflow classes would load the whole run kit into every CLI command's start.
"""

from __future__ import annotations

PROGRESS_QUERY = "progress"
"""Query: the run's :class:`prflow.run_progress.RunProgress` (phases, agents, spend)."""
SPEND_QUERY = "spend"
"""Query: the run's :class:`prflow.agent.budget.BudgetStatus`."""
RAISE_BUDGET_UPDATE = "raise_budget"
"""Update: raise a phase's caps (:class:`prflow.agent.budget.BudgetRaise`); returns the new
:class:`prflow.agent.budget.BudgetStatus`."""
