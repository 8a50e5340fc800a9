"""Turn a runner's console output into what GitHub Actions serves as a job log.

Actions prefixes each line with an ISO-8601 timestamp (7 fractional digits)
and frames each step with ``##[group]`` / ``##[endgroup]`` markers; the
failing step ends with ``##[error]Process completed with exit code 1.``.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> str:
    """A runner's real output, captured by running it (see samples/README.md)."""
    return (SAMPLES / name).read_text(encoding="utf-8")


def as_actions_log(output: str, command: str) -> str:
    lines = [
        "##[group]Run actions/checkout@v4",
        "Syncing repository: octo-org/service",
        "##[endgroup]",
        f"##[group]Run {command}",
        f"\x1b[36;1m{command}\x1b[0m",
        "shell: /usr/bin/bash -e {0}",
        "##[endgroup]",
        *output.splitlines(),
        "##[error]Process completed with exit code 1.",
    ]
    return "".join(
        f"2026-03-02T10:15:{index % 60:02d}.{index:07d}Z {line}\n"
        for index, line in enumerate(lines)
    )
