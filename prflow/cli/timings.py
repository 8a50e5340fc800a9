"""Where a command's own time goes: opt-in marks, for the bench (like git's GIT_TRACE2_PERF).

With ``PRFLOW_CLI_TIMES`` set to a file, a command appends one JSON line when it
exits: its pid, named wall-clock marks (``time.time()``, so a parent process can
line them up with when it spawned the command) and facts such as the workflow id
and run id it followed. Unset, :func:`mark` costs one boolean test. Nothing here
imports beyond the standard library, so it can mark the earliest moments.
"""

from __future__ import annotations

import json
import os
import time

ENV = "PRFLOW_CLI_TIMES"

_path = os.environ.get(ENV) or None
_marks: list[tuple[str, float]] = []
_facts: dict[str, str] = {}


def mark(name: str) -> None:
    """Record that the command reached ``name`` now."""
    if _path is not None:
        _marks.append((name, time.time()))


def fact(name: str, value: str) -> None:
    """Record a fact about the run (e.g. its workflow id) next to the marks."""
    if _path is not None:
        _facts[name] = value


def flush() -> None:
    """Append this command's record to the file; a write failure never fails the command."""
    if _path is None or not _marks:
        return
    record = {"pid": os.getpid(), "marks": _marks, "facts": _facts}
    try:
        with open(_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
    except OSError:
        pass
