"""``python -m bench.impact.incremental``: small PRs in a big repository, through the real CLI.

Two PRs on top of SQLAlchemy 2.0.0 (1,153 files), each giving three public
functions of three different modules a new required first parameter:

1. **first PR on a fresh machine:** ``prflow impact --repo . --base head
   --head small-pr --no-llm`` from inside the repository with empty data and
   cache directories; the command starts its own Temporal and the warm worker
   (``PRFLOW_TEMPORAL__WARM_SECONDS=600``), migrates the ledger, snapshots
   both commits, builds both import graphs and parses what it needs;
2. **next PR:** the same command for ``--head next-pr`` (three other modules)
   while that warm worker is up, as a user's next PR in the same repository.
   The workflow's own time (start to close, read from Temporal after the run)
   is printed apart from the client's (process start, imports, connect, fetch).

The anchor is griffe's whole-package check in process (load both trees, list
breakages), which is what griffe costs for any PR. Both ratios are printed
last. Timings on a shared machine are noisy: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.impact.accuracy import _add_required_parameter, _repo, timed_griffe
from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.measure import run_checked
from bench.impact.pairs import ACCURACY_PAIRS
from bench.impact.prflow_cli import PrflowCli, read_report
from bench.impact.repos import HEAD_REF, git
from bench.impact.snapshots import export_ref
from prflow.source_tree import DirectoryTree

WARM_SECONDS = "600"
BRANCHES = {
    "small-pr": (
        "lib/sqlalchemy/engine/url.py",
        "lib/sqlalchemy/sql/operators.py",
        "lib/sqlalchemy/util/langhelpers.py",
    ),
    "next-pr": (
        "lib/sqlalchemy/sql/functions.py",
        "lib/sqlalchemy/orm/util.py",
        "lib/sqlalchemy/engine/reflection.py",
    ),
}


@dataclass(frozen=True)
class CliRun:
    wall: float
    workflow: float | None
    findings: int


def _branch(repo: Path, name: str, files: tuple[str, ...]) -> None:
    try:
        git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}")
    except BenchError:
        git(repo, "checkout", "-q", "-B", name, HEAD_REF)
        for path in files:
            _add_required_parameter(repo / path)
        git(repo, "commit", "-q", "-am", f"{name}: a new required parameter in three modules")
        git(repo, "checkout", "-q", HEAD_REF)


def _impact(cli: PrflowCli, repo: Path, head: str) -> CliRun:
    report = cli.state / "reports" / f"{head}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    command = [str(cli.binary), "impact", "--repo", ".", "--base", HEAD_REF, "--head", head]
    command += ["--no-llm", "--format", "json", "--output", str(report), "--quiet"]
    start = time.perf_counter()
    run_checked(command, cwd=repo, env=cli.env())
    wall = time.perf_counter() - start
    findings = read_report(report).breaking_changes
    return CliRun(wall, asyncio.run(_last_workflow_seconds(cli)), findings)


async def _last_workflow_seconds(cli: PrflowCli) -> float | None:
    """Start to close of the newest impact workflow on the bench's Temporal."""
    from temporalio.client import Client

    try:
        client = await Client.connect(f"127.0.0.1:{cli.port}")
    except Exception:  # the warm worker's server went away: report the wall time only
        return None
    newest = None
    async for execution in client.list_workflows("WorkflowType = 'impact'"):
        if execution.close_time is None:
            continue
        if newest is None or execution.start_time > newest.start_time:
            newest = execution
    if newest is None or newest.close_time is None:
        return None
    return (newest.close_time - newest.start_time).total_seconds()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.incremental")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--runs", type=int, default=1, help="repeats of each measurement")
    args = parser.parse_args(argv)
    work = WorkDir(args.work_dir.resolve())
    pair = next(p for p in ACCURACY_PAIRS if p.package == "sqlalchemy")
    firsts: list[CliRun] = []
    nexts: list[CliRun] = []
    anchors: list[float] = []
    try:
        repo = _repo(pair, work).resolve()
        for name, changed in BRANCHES.items():
            _branch(repo, name, changed)
        scratch = work.root / "anchor" / "incremental"
        base = export_ref(repo, HEAD_REF, scratch / "base")
        head = export_ref(repo, "small-pr", scratch / "head")
        files = len(DirectoryTree(base).paths())
        for run in range(args.runs):
            print(f"bench: run {run + 1}: griffe", file=sys.stderr, flush=True)
            anchors.append(timed_griffe(base / "lib", head / "lib", "sqlalchemy"))
            cli = PrflowCli(
                fresh_dir(work.root / "state" / "incremental"),
                extra_env={"PRFLOW_TEMPORAL__WARM_SECONDS": WARM_SECONDS},
            )
            try:
                print(f"bench: run {run + 1}: first PR, fresh", file=sys.stderr, flush=True)
                firsts.append(_impact(cli, repo, "small-pr"))
                print(f"bench: run {run + 1}: next PR, warm", file=sys.stderr, flush=True)
                nexts.append(_impact(cli, repo, "next-pr"))
            finally:
                cli.stop_warm_worker()
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    anchor = statistics.median(anchors)
    first = statistics.median(r.wall for r in firsts)
    following = statistics.median(r.wall for r in nexts)
    print(
        f"small PRs in a big repository through the CLI (SQLAlchemy 2.0.0, {files} files, "
        f"3 changed files each), median of {args.runs}"
    )
    print(f"  griffe whole-package check, in process   {anchor:6.2f}s")
    for label, runs in (("first PR, fresh machine", firsts), ("next PR, warm worker", nexts)):
        wall = statistics.median(r.wall for r in runs)
        flows = [r.workflow for r in runs if r.workflow is not None]
        split = ""
        if flows:
            flow = statistics.median(flows)
            split = f"  (workflow {flow:5.2f}s, client and start-up {wall - flow:5.2f}s)"
        print(f"  prflow impact, {label:<25} {wall:6.2f}s{split}  {runs[0].findings} findings")
    print(f"ratio prflow/griffe (first PR, fresh machine): {first / anchor:.2f}x")
    print(f"ratio prflow/griffe (next PR, warm worker): {following / anchor:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
