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

_where: list[str] = []
"""The file records go to: empty when ``PRFLOW_CLI_TIMES`` is unset."""
_marks: list[tuple[str, float]] = []
_facts: dict[str, str] = {}


def reset() -> None:
    """Read ``PRFLOW_CLI_TIMES`` again and forget every mark: a command forked from the
    fork server (:mod:`prflow.cli.fork_server`) has its own environment, not the server's."""
    _where[:] = [os.environ[ENV]] if os.environ.get(ENV) else []
    _marks.clear()
    _facts.clear()


def mark(name: str) -> None:
    """Record that the command reached ``name`` now."""
    if _where:
        _marks.append((name, time.time()))


def fact(name: str, value: str) -> None:
    """Record a fact about the run (e.g. its workflow id) next to the marks."""
    if _where:
        _facts[name] = value


def flush() -> None:
    """Append this command's record to the file; a write failure never fails the command."""
    if not _where or not _marks:
        return
    times = os.times()
    cpu = times.user + times.system + times.children_user + times.children_system
    record = {"pid": os.getpid(), "marks": _marks, "facts": _facts, "cpu_seconds": cpu}
    try:
        with open(_where[0], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
    except OSError:
        pass


reset()
