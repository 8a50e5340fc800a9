"""``python -m bench.impact.small_pair``: a small release pair, worker warm, caches cold.

What a user pays for ``prflow impact --no-llm`` on a small package the warm
worker has never seen: the real console script, run from inside the pair's
repository (``--repo .``), timed from spawn to exit (client start, workflow,
report). The warm worker was started by an earlier command; before every timed
command the caches are made cold: the parse cache is emptied, the commit
snapshots are deleted, and the pair is committed again under new SHAs (same
trees, another commit date), so nothing keyed by blob or commit is reused.

Anchor: griffe's in-process check of the same pair (load both releases, list the
breakages), timed in this process on a settled heap, interleaved with prflow's
runs so both see the same load. The ratio of the medians is printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.impact.__main__ import prepare_repo
from bench.impact.accuracy import timed_griffe
from bench.impact.client_time import (
    LOCAL,
    PHASES,
    ClientRun,
    marked_cli,
    one_run,
    wait_for_fork_server,
    workflow_times,
)
from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.pairs import PYTHON_PAIR, PythonPair
from bench.impact.process_cpu import tree_cpu_seconds, warm_worker_pid
from bench.impact.repos import BASE_REF, HEAD_REF, git
from bench.impact.snapshots import snapshot_pair


def _recommit(repo: Path, round_: int) -> tuple[str, str]:
    """``base``/``head`` again as new commits (same trees, a later date): unseen SHAs."""
    date = f"2024-02-01T00:{round_ // 60:02d}:{round_ % 60:02d}+00:00"
    env_args = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    base_tree = git(repo, "rev-parse", f"{BASE_REF}^{{tree}}")
    head_tree = git(repo, "rev-parse", f"{HEAD_REF}^{{tree}}")
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}

    def commit_tree(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), *env_args, "commit-tree", *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return done.stdout.strip()

    base = commit_tree(base_tree, "-m", f"base, round {round_}")
    head = commit_tree(head_tree, "-p", base, "-m", f"head, round {round_}")
    names = (f"cold-base-{round_}", f"cold-head-{round_}")
    git(repo, "branch", "-f", names[0], base)
    git(repo, "branch", "-f", names[1], head)
    return names


def _cool(state: Path) -> None:
    """Empty prflow's parse cache and delete its commit snapshots."""
    database = state / "data" / "prflow.db"
    if database.is_file():
        with sqlite3.connect(database, timeout=30) as connection:
            connection.execute("DELETE FROM parse_cache")
    snapshots = state / "cache" / "snapshots"
    if snapshots.is_dir():
        shutil.rmtree(snapshots)


def measure(
    pair: PythonPair, work: WorkDir, runs: int
) -> tuple[list[ClientRun], list[float], list[int], list[dict[str, float]], list[float]]:
    repo = prepare_repo(pair, work).resolve()
    base, head = snapshot_pair(repo, work.anchor(pair))
    search = pair.search_path.strip("./")
    state = fresh_dir(work.root / "state" / "small-pair")
    cli, times, report = marked_cli(state)
    results: list[ClientRun] = []
    griffe: list[float] = []
    found: list[int] = []
    activities: list[dict[str, float]] = []
    worker_cpu: list[float] = []
    try:
        print(f"bench: {pair.label}: first command (starts the warm worker)", file=sys.stderr)
        cli.impact(repo, report)
        wait_for_fork_server(cli)
        worker = warm_worker_pid(state / "data")
        for round_ in range(runs):
            names = _recommit(repo, round_)
            _cool(state)
            before = tree_cpu_seconds(worker) if worker is not None else 0.0
            run, figures = one_run(cli, repo, report, times, *names)
            if worker is not None:
                worker_cpu.append(tree_cpu_seconds(worker) - before)
            results.append(run)
            facts = json.loads(times.read_text(encoding="utf-8").splitlines()[-1])["facts"]
            _, per_activity = asyncio.run(
                workflow_times(cli.port, facts["workflow_id"], facts["run_id"])
            )
            activities.append(per_activity)
            found.append(figures.breaking_changes)
            griffe.append(timed_griffe(base / search, head / search, pair.import_package))
    finally:
        cli.stop_warm_worker()
    return results, griffe, found, activities, worker_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.small_pair", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        runs, griffe, found, activities, worker_cpu = measure(
            PYTHON_PAIR, WorkDir(args.work_dir.resolve()), args.runs
        )
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    wall = statistics.median(r.wall for r in runs)
    anchor = statistics.median(griffe)
    print(
        f"{PYTHON_PAIR.label}, worker warm, caches cold, median of {len(runs)} ({started}); "
        f"{statistics.median(found)} breaking changes"
    )
    for name, first, last in PHASES:
        print(f"  {name:<12} {statistics.median(r.phase(first, last) for r in runs):6.3f}s")
    print(f"  workflow (server) {statistics.median(r.workflow for r in runs):6.3f}s")
    for name in activities[0]:
        seconds = statistics.median(a.get(name, 0.0) for a in activities)
        shown = "  (in a workflow task)" if seconds == LOCAL else f"{seconds:6.3f}s"
        print(f"    activity {name:<28} {shown}")
    print(f"  client CPU        {statistics.median(r.cpu for r in runs):6.3f}s")
    if worker_cpu:
        print(f"  warm worker CPU   {statistics.median(worker_cpu):6.3f}s (its process tree)")
    forked = sum(r.forked for r in runs)
    print(f"  forked from the warm fork server: {forked} of {len(runs)} commands")
    print(f"prflow impact (whole command)  {wall:6.3f}s")
    print(f"griffe in process              {anchor:6.3f}s")
    print(f"ratio prflow/griffe (small pair, worker warm, caches cold): {wall / anchor:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
