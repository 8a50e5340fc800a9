"""What every hostile-input test asserts about a failed ``prflow`` run: one line, no traceback."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.cli_runs import CliRun, embedded_environment, free_port

ERROR_PREFIX = "prflow: error: "


def one_line_error(run: CliRun, code: int, *needles: str) -> str:
    """The single stderr line of a failed run, after checking exit code and shape."""
    assert run.code == code, run.describe()
    assert "Traceback" not in run.stderr, run.describe()
    assert len(run.stderr_lines) == 1, run.describe()
    line = run.stderr_lines[0]
    assert line.startswith(ERROR_PREFIX), run.describe()
    for needle in needles:
        assert needle in line, f"{needle!r} missing from: {line}"
    return line


def plain_environment(home: Path, **extra: str) -> dict[str, str]:
    """A user's shell with nothing prflow-specific set, state under ``home``, plus ``extra``."""
    env = embedded_environment(home, free_port(), free_port())
    env.pop("PRFLOW_CONFIG", None)
    if "DATABASE_URL" in extra:  # the prefixed variable would win over the one under test
        env.pop("PRFLOW_DATABASE_URL")
    env.update(extra)
    return env


def without(env: dict[str, str], *names: str) -> dict[str, str]:
    return {key: value for key, value in env.items() if key not in names}


def files_under(path: Path) -> list[str]:
    """Every file below ``path`` (to show a failed run left nothing behind)."""
    return sorted(
        os.path.relpath(os.path.join(root, name), path)
        for root, _, names in os.walk(path)
        for name in names
    )
