"""The real CLI with a warm worker against griffe's in-process check, on the Python release pairs.

``prflow impact`` runs as a user runs it twice in a row on a laptop: the
first command starts the warm worker (embedded dev server and workers, kept
for ``PRFLOW_TEMPORAL__WARM_SECONDS``, set explicitly here), the following
ones only pay the client. prflow does its whole static analysis (breaking
changes with their consumers, import graphs, test gaps, stale docs, risk);
griffe, in process, loads both releases and lists breakages. ``prflow server
stop`` ends the warm worker when the bench is done, also after an error.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.impact.layout import WorkDir, fresh_dir
from bench.impact.prflow_cli import PrflowCli

WARM_SECONDS = "600"


@dataclass(frozen=True)
class WarmRun:
    label: str
    first: float
    warm: tuple[float, ...]
    griffe: float
    findings: int

    @property
    def median(self) -> float:
        return statistics.median(self.warm)


def measure(pairs: list[tuple[str, Path, float]], work: WorkDir, runs: int) -> list[WarmRun]:
    """``pairs``: (label, repository, griffe's in-process seconds) per Python release pair."""
    cli = PrflowCli(
        fresh_dir(work.root / "state" / "warm-cli"),
        extra_env={"PRFLOW_TEMPORAL__WARM_SECONDS": WARM_SECONDS},
    )
    results: list[WarmRun] = []
    try:
        for label, repo, griffe in pairs:
            report = cli.state / "reports" / "impact.json"
            print(f"bench: {label}: prflow impact through the CLI", file=sys.stderr, flush=True)
            start = time.perf_counter()
            figures = cli.impact(repo.resolve(), report)
            first = time.perf_counter() - start
            warm = []
            for _ in range(runs):
                start = time.perf_counter()
                cli.impact(repo.resolve(), report)
                warm.append(time.perf_counter() - start)
            results.append(WarmRun(label, first, tuple(warm), griffe, figures.breaking_changes))
    finally:
        cli.stop_warm_worker()
    return results


def report(results: list[WarmRun]) -> list[str]:
    lines = [
        "\nwarm CLI (prflow impact --no-llm through a warm worker, median of repeat runs) "
        "vs griffe in process:"
    ]
    for run in results:
        lines.append(
            f"  {run.label:<34} first {run.first:6.2f}s  warm {run.median:6.2f}s  "
            f"griffe {run.griffe:6.2f}s  {run.median / run.griffe:5.2f}x  "
            f"({run.findings} breaking changes)"
        )
    prflow = sum(r.median for r in results)
    griffe = sum(r.griffe for r in results)
    lines.append(
        f"  release pairs together: prflow {prflow:.2f}s warm, griffe {griffe:.2f}s: "
        f"{prflow / griffe:.2f}x"
    )
    return lines
