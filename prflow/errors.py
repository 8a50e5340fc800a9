"""Error classes shared by the CLI, activities and workflows.

A :class:`UserError` is a mistake the user can fix (bad identifier, unknown
ref, missing token). Activities raise it as a non-retryable Temporal
``ApplicationError`` of type ``UserError`` so the workflow fails fast, and the
CLI prints its message on one line and exits 2.

An :class:`Unreachable` is a service prflow needs (the ledger database, a git
remote) that does not answer. It is not the user's mistake, so activities let
Temporal retry it; the CLI, which cannot wait, prints its one-line message and
exits 2 because the fix is a setting or a server the user controls.
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


class InvalidValue(UserError, ValueError):
    """A value a pydantic model refuses: a validation error there, one CLI line here.

    Being a ``ValueError`` makes pydantic report it as an ordinary validation
    error (so a webhook or MCP handler sees a ``ValidationError``); being a
    :class:`UserError` lets the CLI print its message as is.
    """


class Unreachable(Exception):
    """A service prflow depends on cannot be reached; ``str()`` names the setting to check.

    A plain marker (no fields of its own), so a subsystem's error can also be one,
    e.g. ``class RemoteUnreachable(GitError, Unreachable)``.
    """


VERBOSE_ENV = "PRFLOW_VERBOSE"
"""Set by ``prflow -v``: say in one line on stderr where credentials and servers come from."""


def user_error_in(err: BaseException) -> UserError | None:
    """The :class:`UserError` behind a pydantic validation failure (a location carrying a
    token, a value a validator refused), so every surface shows its message, not pydantic's."""
    from pydantic import ValidationError

    if isinstance(err, UserError):
        return err
    if not isinstance(err, ValidationError):
        return None
    for detail in err.errors():
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, UserError):
            return cause
    return None
