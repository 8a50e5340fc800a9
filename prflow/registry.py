"""Every job kind prflow runs: adding a kind is one line here plus its own package.

A line names the kind's declaration and its CLI by import path, as strings, so the
CLI can list and route commands without importing any kind: ``prflow impact`` loads
the impact command's module only, ``prflow --version`` none. The declarations
themselves (:data:`KINDS`) load on first use, by the worker, the queue and ``--help``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prflow.errors import UserError

if TYPE_CHECKING:
    from prflow.kinds import KindDeclaration


@dataclass(frozen=True)
class KindLine:
    """One kind, by import paths only."""

    declaration: str
    """``module:NAME`` of the kind's :class:`~prflow.kinds.KindDeclaration`."""
    cli: str | None = None
    """``module:register`` adding the kind's commands to a ``typer.Typer``, if it has any."""
    commands: tuple[str, ...] = ()
    """The top-level commands ``cli`` adds (a test holds the two together)."""


LINES: tuple[KindLine, ...] = (
    KindLine("prflow.impact.kind:IMPACT", "prflow.cli.impact_cmd:register", ("impact",)),
    KindLine("prflow.pr_tools.kind:PR_CHECKS", "prflow.cli.pr_cmd:register", ("pr",)),
    KindLine("prflow.review.kind:REVIEW", "prflow.cli.review_cmd:register", ("review",)),
    KindLine("prflow.queue.kind:QUEUE", "prflow.cli.queue_cmd:register", ("queue", "webhook")),
    KindLine("prflow.docsync.kind:DOCSYNC", "prflow.cli.docsync_cmd:register", ("docsync",)),
    KindLine("prflow.refactor.kind:REFACTOR", "prflow.cli.refactor_cmd:register", ("refactor",)),
    KindLine("prflow.conversation.kind:CONVERSATION"),
)

KIND_COMMANDS: dict[str, str] = {
    command: line.cli for line in LINES if line.cli is not None for command in line.commands
}
"""Each kind's top-level command and the ``module:register`` that adds it."""

if TYPE_CHECKING:
    KINDS: tuple[KindDeclaration, ...]
    """Every kind's declaration, in the order of :data:`LINES`."""


@functools.cache
def _declarations() -> tuple[KindDeclaration, ...]:
    from prflow.kinds import import_path

    return tuple(import_path(line.declaration) for line in LINES)


def __getattr__(name: str) -> Any:
    """:data:`KINDS`, imported on first use (module ``__getattr__``, PEP 562)."""
    if name == "KINDS":
        return _declarations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def kind_named(name: str) -> KindDeclaration:
    """The declaration of kind ``name``."""
    for kind in _declarations():
        if kind.name == name:
            return kind
    known = ", ".join(k.name for k in _declarations())
    raise UserError(f"unknown job kind {name!r}; prflow runs: {known}")
