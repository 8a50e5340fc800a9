"""``python -m bench.chaos [--runs N] [--undisturbed K] [--seed S]``.

K undisturbed impact runs, then N runs each with the worker SIGKILLed once at
a random moment (seeded) within the undisturbed run's duration, one after
another on the same stage. Prints one line per run, the counts the issue
asks for, and the ratio of p50 wall times (chaos / undisturbed) last.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench.chaos.measure import RunRecord, impact_run, p50
from bench.chaos.stage import chaos_stage
from bench.impact.layout import DEFAULT_ROOT

KILL_WINDOW = 0.9
"""Kills land in the first 90 % of an undisturbed run, so each one interrupts the run."""


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _row(record: RunRecord) -> str:
    kill = "-" if record.kill_after is None else f"{record.kill_after:5.1f}"
    return (
        f"  {record.number:>3}  {kill:>7}  {record.killed_during[:34]:<34}  "
        f"{record.wall_seconds:7.1f}  {'yes' if record.complete else 'NO':>8}  "
        f"{record.completed_turns_resent:>6}  {record.ledger_rows:>4}/{record.requests:<4}  "
        f"{record.comments:>8}"
    )


def _table(title: str, records: list[RunRecord]) -> list[str]:
    header = (
        "  run  kill s   running at the kill                  wall s  complete  resent  "
        "rows/reqs  comments"
    )
    return [title, header, *(_row(record) for record in records)]


def summary(
    undisturbed: list[RunRecord], chaos: list[RunRecord], seed: int, model_latency: float
) -> list[str]:
    everything = undisturbed + chaos
    rows = sum(r.ledger_rows for r in everything)
    requests = sum(r.requests for r in everything)
    unknown = sum(r.unfinished_rows for r in everything)
    comments = sorted({r.comments for r in everything})
    base = [r.wall_seconds for r in undisturbed]
    hit = [r.wall_seconds for r in chaos]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    landed = Counter(r.killed_during for r in chaos)
    return [
        f"prflow chaos bench, {stamp}: impact --pr --post with the model phase, "
        f"model latency {model_latency:.1f} s per turn, seed {seed}",
        *_table("undisturbed runs", undisturbed),
        *_table("runs with the worker SIGKILLed once at a random moment", chaos),
        "kills landed in: " + ", ".join(f"{name} x{count}" for name, count in landed.most_common()),
        f"completions: {sum(r.complete for r in chaos)}/{len(chaos)} killed runs and "
        f"{sum(r.complete for r in undisturbed)}/{len(undisturbed)} undisturbed runs returned "
        "a complete report (score, Markdown, model phase, comment)",
        f"completed turns resent: {sum(r.completed_turns_resent for r in everything)}",
        f"ledger rows vs requests received by the model server: {rows} rows / {requests} "
        f"requests ({unknown} attempts cut off by a kill, on the books as unknown)",
        f"comments per PR: {', '.join(map(str, comments))} ({len(everything)} PRs)",
        f"wall time: killed runs p50 {p50(hit):.1f} s, max {max(hit):.1f} s; "
        f"undisturbed p50 {p50(base):.1f} s, max {max(base):.1f} s",
        f"ratio killed/undisturbed (p50 wall time): {p50(hit) / p50(base):.1f}x",
    ]


async def bench(
    runs: int, undisturbed_runs: int, seed: int, model_latency: float, root: Path
) -> list[str]:
    chooser = random.Random(seed)
    async with chaos_stage(root, model_latency) as stage:
        undisturbed = []
        for number in range(1, undisturbed_runs + 1):
            _progress(f"undisturbed run {number}/{undisturbed_runs}")
            undisturbed.append(await impact_run(stage, number, None))
        window = KILL_WINDOW * p50([r.wall_seconds for r in undisturbed])
        chaos = []
        for index in range(runs):
            kill_after = round(chooser.uniform(0.0, window), 2)
            _progress(f"run {index + 1}/{runs}: SIGKILL after {kill_after:.2f} s")
            chaos.append(await impact_run(stage, undisturbed_runs + index + 1, kill_after))
    return summary(undisturbed, chaos, seed, model_latency)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="runs with a kill (default 10)")
    parser.add_argument("--undisturbed", type=int, default=3, help="runs without (default 3)")
    parser.add_argument("--seed", type=int, default=11, help="seed of the kill moments")
    parser.add_argument(
        "--model-latency", type=float, default=0.5, help="seconds per model answer (default 0.5)"
    )
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT, help="default bench/.work")
    args = parser.parse_args()
    if args.runs < 1 or args.undisturbed < 1 or args.model_latency < 0:
        parser.error("--runs and --undisturbed must be at least 1, --model-latency at least 0")
    lines = asyncio.run(
        bench(args.runs, args.undisturbed, args.seed, args.model_latency, args.work_dir / "chaos")
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
