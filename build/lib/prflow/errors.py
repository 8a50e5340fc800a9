"""Error classes shared by the CLI, activities and workflows.

A :class:`UserError` is a mistake the user can fix (bad identifier, unknown
ref, missing token). Activities raise it as a non-retryable Temporal
``ApplicationError`` of type ``UserError`` so the workflow fails fast, and the
CLI prints its message on one line and exits 2.
"""

from __future__ import annotations

USER_ERROR_TYPE = "UserError"


class UserError(Exception):
    """Something the user asked for cannot be done; the message says what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
