"""How a failed tool call reads to an MCP client: a tool result with ``isError`` and one line.

Whatever a call raises ends here, so nothing reaches the client as a JSON-RPC
error with a traceback on the server's stderr. A mistake the caller can fix, a
remote that does not answer or a git failure is said as the CLI says it; an
unexpected failure is named by its type, and only that one is logged with its
traceback (it is a bug worth a report). Every line is redacted like the CLI's
and clipped, so a 100,000-character argument never comes back whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from prflow.credentials import redact
from prflow.errors import Unreachable, user_error_in
from prflow.tools.reader import ToolError

MAX_LINE_CHARS = 500
"""Enough for any message prflow writes; an echoed argument beyond it is cut."""


@dataclass(frozen=True)
class Failure:
    """The line a client reads, and whether the server should log the traceback."""

    line: str
    unexpected: bool = False


def one_line(text: str) -> str:
    """``text`` on one line, secrets in locations replaced, at most :data:`MAX_LINE_CHARS`."""
    line = redact(" ".join(text.split()))
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[: MAX_LINE_CHARS - 1].rstrip() + "…"


def failure_of(err: Exception) -> Failure:
    """Classify what a tool call raised, as the CLI does for a command."""
    from prflow.git.repo import GitError

    user_error = user_error_in(err)
    if user_error is not None:
        return Failure(one_line(user_error.message))
    if isinstance(err, ToolError | Unreachable | GitError):
        return Failure(one_line(str(err)))
    if isinstance(err, OSError) and err.strerror:
        where = f" ({err.filename})" if err.filename else ""
        return Failure(one_line(f"{err.strerror}{where}"))
    return Failure(
        one_line(f"internal error ({type(err).__name__}: {err}); the server's stderr has details"),
        unexpected=True,
    )
