"""Every job kind prflow runs: adding a kind is one line here plus its own package."""

from __future__ import annotations

from prflow.conversation.kind import CONVERSATION
from prflow.docsync.kind import DOCSYNC
from prflow.errors import UserError
from prflow.impact.kind import IMPACT
from prflow.kinds import KindDeclaration
from prflow.pr_tools.kind import PR_CHECKS
from prflow.queue.kind import QUEUE
from prflow.refactor.kind import REFACTOR
from prflow.review.kind import REVIEW

KINDS: tuple[KindDeclaration, ...] = (
    IMPACT,
    PR_CHECKS,
    REVIEW,
    QUEUE,
    DOCSYNC,
    REFACTOR,
    CONVERSATION,
)


def kind_named(name: str) -> KindDeclaration:
    """The declaration of kind ``name``."""
    for kind in KINDS:
        if kind.name == name:
            return kind
    known = ", ".join(k.name for k in KINDS)
    raise UserError(f"unknown job kind {name!r}; prflow runs: {known}")
