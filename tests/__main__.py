"""The project's whole check: lint, format, types, then every test.

Run as ``python -m tests`` (the README's test command). Each step prints its
command. ruff and the import contracts (``lint-imports``, pyproject's
``[tool.importlinter]``) run first (seconds) and stop the run on a finding. Then
three things run at once: the ``serial`` share (kill-and-resume tests judged against
heartbeat timeouts; mostly waiting) in one pytest process at normal priority,
the rest of the suite across pytest-xdist workers, and mypy. The last two run
at a lower CPU priority (``nice``), so the timing-bound tests get the CPU when
they need it and the others take what the waits leave. Extra arguments replace
that plan with one pytest run of their own.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEFAULT_WORKERS = "3"
"""Three workers keep the 2-core reference machine's cores busy while tests wait on dev
servers and subprocesses (figures in the README's Quick start)."""
BACKGROUND_NICENESS = 19
"""How far below the timing-bound share the parallel share and mypy run."""


def _lint_steps() -> list[list[str]]:
    return [
        [str(BIN / "ruff"), "check", "."],
        [str(BIN / "ruff"), "format", "--check", "."],
        [str(BIN / "lint-imports"), "--no-logo", "--no-cache"],  # pyproject's layer contracts
    ]


def _pytest() -> list[str]:
    return [sys.executable, "-m", "pytest"]


SLOWEST = "--durations=20"
"""Each share names its slowest 20 tests: where the suite's time goes, on every run."""


def _parallel_share() -> list[str]:
    return [*_pytest(), "-n", DEFAULT_WORKERS, "--dist", "loadfile", "-m", "not serial", SLOWEST]


def _serial_share() -> list[str]:
    return [*_pytest(), "-m", "serial", SLOWEST]


def _show(command: list[str], note: str = "") -> None:
    print("+", " ".join([Path(command[0]).name, *command[1:]]) + note, flush=True)


def _niced(command: list[str]) -> list[str]:
    return ["nice", "-n", str(BACKGROUND_NICENESS), *command]


def _start(command: list[str], output: IO[str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=output,
        stderr=subprocess.STDOUT if output is not None else None,
        text=True,
    )


def _replay(title: str, output: IO[str]) -> None:
    output.seek(0)
    print(title, flush=True)
    print(output.read().rstrip(), flush=True)


def main() -> int:
    for command in _lint_steps():
        _show(command)
        code = subprocess.call(command, cwd=ROOT)
        if code != 0:
            return code
    mypy = [str(BIN / "mypy")]
    with (
        tempfile.TemporaryFile("w+") as mypy_output,
        tempfile.TemporaryFile("w+") as serial_output,
    ):
        _show(mypy, "  (beside pytest, niced; its output follows the tests)")
        checking = _start(_niced(mypy), mypy_output)
        if sys.argv[1:]:
            command = [*_pytest(), *sys.argv[1:]]
            _show(command)
            tests_code = subprocess.call(command, cwd=ROOT)
        else:
            serial = _serial_share()
            _show(serial, "  (beside the rest; its output follows theirs)")
            timing_bound = _start(serial, serial_output)
            parallel = _parallel_share()
            _show(parallel, "  (niced)")
            parallel_code = _start(_niced(parallel)).wait()
            serial_code = timing_bound.wait()
            _replay("+ pytest -m serial (ran beside the rest):", serial_output)
            tests_code = parallel_code or serial_code
        types_code = checking.wait()
        _replay("+ mypy (ran beside pytest):", mypy_output)
    return types_code or tests_code


if __name__ == "__main__":
    sys.exit(main())
