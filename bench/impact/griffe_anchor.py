"""The Python anchor: ``griffe check``, the standard API-breakage checker for Python.

It does one part of ``prflow impact`` (breaking changes of the public API) on
the same two refs of the same repository, loading both versions from git
itself, as a CLI process so it pays interpreter start like prflow does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.measure import run_checked
from bench.impact.repos import BASE_REF, HEAD_REF

# ``httpx/_api.py:39: request(proxies): Parameter was removed``
_ONELINE = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+): (?P<object>[^:(]+)(?:\([^)]*\))?: ")
_FOUND_BREAKAGES = 1


@dataclass(frozen=True)
class GriffeFindings:
    """griffe reports one breakage per parameter; ``symbols`` groups them per API object."""

    breakages: int
    symbols: frozenset[tuple[str, str]]


def parse_oneline(output: str) -> GriffeFindings:
    lines = [line for line in output.splitlines() if line.strip()]
    symbols = set()
    for line in lines:
        match = _ONELINE.match(line)
        if match is None:
            raise BenchError(f"unexpected griffe output line: {line}")
        symbols.add((match["file"], match["object"].strip()))
    return GriffeFindings(breakages=len(lines), symbols=frozenset(symbols))


def griffe_check(repo: Path, package: str, search_path: str) -> GriffeFindings:
    """``griffe check PACKAGE --against base --base-ref head`` in the pair's repository."""
    griffe = Path(sys.executable).parent / "griffe"
    if not griffe.is_file():
        raise BenchError(f"griffe is not installed next to {sys.executable}")
    command = [str(griffe), "check", package, "--against", BASE_REF, "--base-ref", HEAD_REF]
    command += ["--search", search_path, "--format", "oneline", "--no-color"]
    done = run_checked(command, cwd=repo, ok_codes=(0, _FOUND_BREAKAGES))
    return parse_oneline(done.stderr + done.stdout)
