"""How a run takes a budget raise: onto the agents running now, and remembered for the
agents of the same phase that start later (see :mod:`prflow.agent.raises`).

Runs recorded before :data:`LATER_AGENTS_PATCH` applied a raise to the running agents
only, and refused one addressed to a phase none of whose agents had started yet even
after its validator accepted it (a refactor's executors while its first task prepared).
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.agent.budget import BudgetBook, BudgetRaise

LATER_AGENTS_PATCH = "budget-raise-later-agents-v1"


def reaches_later_agents() -> bool:
    """Whether this run keeps raises for agents not started yet (see the module doc)."""
    return workflow.patched(LATER_AGENTS_PATCH)


def take_raise(book: BudgetBook, raises: list[BudgetRaise], change: BudgetRaise) -> None:
    """Lift the caps ``change`` addresses in ``book`` and remember it in ``raises``."""
    if not reaches_later_agents():
        book.apply_raise(change)
        return
    raises.append(change)
    if book.knows(change.phase):
        book.apply_raise(change)
