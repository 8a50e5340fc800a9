"""The project's whole check: lint, format, types, then every test.

Run as ``python -m tests`` (the README's test command). Each step prints its
command. ruff runs first (seconds) and stops the run on a finding; mypy then
type-checks in the background while pytest runs the suite across worker
processes (pytest-xdist, one file per worker at a time), since most tests wait
on servers and subprocesses rather than the CPU; the ``serial`` share runs after
it alone. Extra arguments replace that plan with one pytest run of their own.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEFAULT_WORKERS = "3"
"""Three workers keep the 2-core reference machine's cores busy while tests wait on dev
servers and subprocesses (figures in the README's Quick start)."""


def _lint_steps() -> list[list[str]]:
    return [
        [str(BIN / "ruff"), "check", "."],
        [str(BIN / "ruff"), "format", "--check", "."],
    ]


def _pytest_runs(pytest_args: list[str]) -> list[list[str]]:
    """The whole suite: the parallel share across workers, then the timing-bound share alone.

    Tests marked ``serial`` (worker and server kills judged against heartbeat
    timeouts) run after the rest, in one process on a quiet machine. Arguments,
    when given, make one run of their own.
    """
    pytest = [sys.executable, "-m", "pytest"]
    if pytest_args:
        return [[*pytest, *pytest_args]]
    return [
        [*pytest, "-n", DEFAULT_WORKERS, "--dist", "loadfile", "-m", "not serial"],
        [*pytest, "-m", "serial"],
    ]


def _show(command: list[str]) -> None:
    print("+", " ".join([Path(command[0]).name, *command[1:]]), flush=True)


def main() -> int:
    for command in _lint_steps():
        _show(command)
        code = subprocess.call(command, cwd=ROOT)
        if code != 0:
            return code
    mypy = [str(BIN / "mypy")]
    _show(mypy)
    with tempfile.TemporaryFile("w+") as mypy_output:
        checking = subprocess.Popen(mypy, cwd=ROOT, stdout=mypy_output, stderr=subprocess.STDOUT)
        tests_code = 0
        for pytest in _pytest_runs(sys.argv[1:]):
            _show(pytest)
            code = subprocess.call(pytest, cwd=ROOT)
            tests_code = tests_code or code
        types_code = checking.wait()
        mypy_output.seek(0)
        print("+ mypy (ran beside pytest):", flush=True)
        print(mypy_output.read().rstrip(), flush=True)
    return types_code or tests_code


if __name__ == "__main__":
    sys.exit(main())
