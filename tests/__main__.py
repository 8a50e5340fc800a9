"""The project's whole check: lint, format, types, then every test.

Run as ``python -m tests`` (the README's test command). Each step prints its
command; the first failing step stops the run with its exit code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _steps(pytest_args: list[str]) -> list[list[str]]:
    return [
        [str(BIN / "ruff"), "check", "."],
        [str(BIN / "ruff"), "format", "--check", "."],
        [str(BIN / "mypy")],
        [sys.executable, "-m", "pytest", *pytest_args],
    ]


def main() -> int:
    for command in _steps(sys.argv[1:]):
        shown = [Path(command[0]).name, *command[1:]]
        print("+", " ".join(shown), flush=True)
        code = subprocess.call(command, cwd=ROOT)
        if code != 0:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
