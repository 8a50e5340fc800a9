"""Wall-clock timing of whole subprocesses, so every tool pays its own process start."""

from __future__ import annotations

import socket
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from bench.impact.errors import BenchError

T = TypeVar("T")


@dataclass(frozen=True)
class Timing:
    """Wall times in seconds of repeated runs of one step."""

    seconds: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def runs(self) -> int:
        return len(self.seconds)


def run_checked(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    ok_codes: tuple[int, ...] = (0,),
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` to completion; a status outside ``ok_codes`` is a one-line error."""
    done = subprocess.run(
        list(command), cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode not in ok_codes:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        detail = lines[-1].strip() if lines else "no output"
        raise BenchError(f"{Path(command[0]).name} exited with {done.returncode}: {detail}")
    return done


def timed(step: Callable[[], T]) -> tuple[float, T]:
    """Seconds ``step`` took, and what it returned."""
    start = time.perf_counter()
    result = step()
    return time.perf_counter() - start, result


def repeat(step: Callable[[], T], runs: int, what: str) -> tuple[Timing, T]:
    """Run ``step`` ``runs`` times; every run must return the same result.

    The analyses are deterministic, so differing results mean the timing
    compares unlike work and the figures would be meaningless.
    """
    seconds: list[float] = []
    results: list[T] = []
    for _ in range(runs):
        elapsed, result = timed(step)
        seconds.append(elapsed)
        results.append(result)
    if any(result != results[0] for result in results):
        raise BenchError(f"{what} gave different results across runs")
    return Timing(tuple(seconds)), results[0]


def free_port() -> int:
    """A loopback port nothing listens on now, so the bench's Temporal never collides."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
