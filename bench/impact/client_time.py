"""``python -m bench.impact.client_time``: the CLI's own time with a warm worker, apart from
the workflow's.

A warm ``prflow impact --no-llm`` on a small pair is mostly the client process:
interpreter and imports, connecting, starting the run, reading the report and
exiting. This bench runs the real console script as a user does (``--repo .``
from inside a real release pair's repository, the warm worker started by the
first command) and splits each repeat run's wall time with the marks the CLI
writes when ``PRFLOW_CLI_TIMES`` names a file (:mod:`prflow.cli.timings`). The
workflow's own time comes from the server (its start and close times), so the
client's share is the wall time minus it.

The anchor is ``griffe check`` on the same pair: a well-known Python CLI doing a
comparable job on the same two refs (start an interpreter, import a library,
compare the public API of two git refs, print the breakages), so the ratio is
"prflow's client overhead against a whole comparable tool" in the same run, on
the same loaded machine. It is printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.impact.__main__ import prepare_repo
from bench.impact.errors import BenchError
from bench.impact.griffe_anchor import griffe_check
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.measure import Timing, timed
from bench.impact.pairs import ACCURACY_PAIRS, PythonPair
from bench.impact.prflow_cli import ImpactFigures, PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF

WARM_SECONDS = "600"
DEFAULT_PAIR = "packaging"
PHASES = (
    ("start-up", "spawn", "command"),  # interpreter (or launcher and fork), argument parsing
    ("client libs", "command", "imported"),  # the Temporal SDK and the run client
    ("checks", "imported", "connecting"),  # settings, refs checked in the checkout, request
    ("connect", "connecting", "connected"),  # warm worker found, client connected
    ("start", "connected", "started"),
    ("wait", "started", "result"),  # includes the workflow's own time
    ("fetch+write", "result", "written"),
    ("exit", "written", "end"),  # runtime teardown and interpreter shutdown
)


@dataclass(frozen=True)
class ClientRun:
    """One warm command: its marks (seconds since spawn), the workflow's own seconds, and
    the CPU seconds the command used (all of it client work: the workflow runs in the warm
    worker's process): the launcher's, plus its forked child's when the fork server ran it."""

    marks: dict[str, float]
    workflow: float
    cpu: float
    forked: bool = False

    @property
    def wall(self) -> float:
        return self.marks["end"]

    @property
    def client(self) -> float:
        return self.wall - self.workflow

    def phase(self, first: str, last: str) -> float:
        return self.marks[last] - self.marks[first]


def _last_record(path: Path) -> dict[str, object]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise BenchError(f"prflow wrote no timing record to {path}")
    record: dict[str, object] = json.loads(lines[-1])
    return record


async def _workflow_seconds(port: int, workflow_id: str, run_id: str) -> float:
    """The run's own time, start to close, as the server recorded it."""
    return (await workflow_times(port, workflow_id, run_id))[0]


async def workflow_times(
    port: int, workflow_id: str, run_id: str
) -> tuple[float, dict[str, float]]:
    """The run's own time, start to close, and each activity's scheduled-to-closed seconds
    (summed by activity name), as the server recorded them; a local activity is listed by
    its marker (``(local)`` after its name) with :data:`LOCAL` for its time."""
    from temporalio.client import Client

    client = await Client.connect(f"127.0.0.1:{port}")
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    described = await handle.describe()
    if described.close_time is None:
        raise BenchError(f"workflow {workflow_id} has not closed")
    scheduled: dict[int, tuple[str, float]] = {}
    activities: dict[str, float] = {}
    async for event in handle.fetch_history_events():
        at = event.event_time.ToDatetime().timestamp()
        if event.HasField("activity_task_scheduled_event_attributes"):
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = (name, at)
        elif event.HasField("activity_task_completed_event_attributes"):
            name, began = scheduled[
                event.activity_task_completed_event_attributes.scheduled_event_id
            ]
            activities[name] = activities.get(name, 0.0) + at - began
        elif event.HasField("marker_recorded_event_attributes"):
            local = _local_activity(event.marker_recorded_event_attributes)
            if local is not None:
                activities.setdefault(local, LOCAL)
    total = (described.close_time - described.start_time).total_seconds()
    return total, activities


LOCAL = -1.0
"""The time :func:`workflow_times` gives a local activity: the history has none."""


def _local_activity(marker: Any) -> str | None:
    """``name (local)`` of a local activity's marker, None for another marker. The server
    keeps no start time for a local activity (it ran inside a workflow task)."""
    if marker.marker_name != "core_local_activity" or "data" not in marker.details:
        return None
    data = json.loads(marker.details["data"].payloads[0].data)
    return f"{data['activity_type']} (local)"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(
    cli: PrflowCli,
    repo: Path,
    report: Path,
    times: Path,
    base: str = BASE_REF,
    head: str = HEAD_REF,
) -> tuple[ClientRun, ImpactFigures]:
    """One timed command of ``base..head``: its marks, workflow and CPU seconds, and figures."""
    cpu_before = _children_cpu()
    spawned = time.time()
    figures = cli.impact(repo, report, base, head)
    ended = time.time()
    cpu = _children_cpu() - cpu_before
    record = _last_record(times)
    pairs: list[list[object]] = record["marks"]  # type: ignore[assignment]
    marks = {str(name): float(str(at)) - spawned for name, at in pairs}
    marks["spawn"] = 0.0
    marks["end"] = ended - spawned
    facts: dict[str, str] = record["facts"]  # type: ignore[assignment]
    if facts.get("forked") == "1":  # the command ran in a child of the warm fork server
        cpu += float(str(record.get("cpu_seconds", 0.0)))
    workflow = asyncio.run(_workflow_seconds(cli.port, facts["workflow_id"], facts["run_id"]))
    forked = facts.get("forked") == "1"
    return ClientRun(marks, workflow, cpu, forked), figures


def _griffe_once(repo: Path, pair: PythonPair) -> tuple[float, float]:
    """Wall and CPU seconds of one ``griffe check`` process."""
    cpu_before = _children_cpu()
    seconds, _found = timed(lambda: griffe_check(repo, pair.import_package, pair.search_path))
    return seconds, _children_cpu() - cpu_before


FORK_SERVER_WAIT_SECONDS = 120.0


def wait_for_fork_server(cli: PrflowCli) -> bool:
    """Wait until the warm worker's command fork server serves (it starts once the worker
    is ready for runs): warm means that too. False on a platform without one."""
    if sys.platform != "linux":
        return False
    log = cli.state / "data" / "warm-worker.log"
    deadline = time.monotonic() + FORK_SERVER_WAIT_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if re.search(r"^prflow fork server \d+ serving$", log.read_text(), re.MULTILINE):
                return True
        time.sleep(0.1)
    raise BenchError(f"the warm worker's fork server did not start; see {log}")


def marked_cli(state: Path) -> tuple[PrflowCli, Path, Path]:
    """A CLI in ``state`` whose worker stays warm and whose commands write their marks: the
    CLI, the marks file and the report path."""
    times = state / "cli-times.jsonl"
    env = {"PRFLOW_TEMPORAL__WARM_SECONDS": WARM_SECONDS, "PRFLOW_CLI_TIMES": str(times)}
    return PrflowCli(state, extra_env=env), times, state / "reports" / "impact.json"


def measure(pair: PythonPair, work: WorkDir, runs: int) -> tuple[list[ClientRun], Timing, Timing]:
    """``runs`` warm commands after one that starts the warm worker, each followed by one
    ``griffe check`` (interleaved, so both see the same load on a shared machine)."""
    repo = prepare_repo(pair, work).resolve()
    cli, times, report = marked_cli(fresh_dir(work.root / "state" / "client-time"))
    results: list[ClientRun] = []
    griffe: list[float] = []
    griffe_cpu: list[float] = []
    try:
        print(f"bench: {pair.label}: first command (starts the warm worker)", file=sys.stderr)
        cli.impact(repo, report)
        wait_for_fork_server(cli)
        print(f"bench: {pair.label}: {runs} warm commands and griffe checks", file=sys.stderr)
        for _ in range(runs):
            results.append(one_run(cli, repo, report, times)[0])
            seconds, cpu = _griffe_once(repo, pair)
            griffe.append(seconds)
            griffe_cpu.append(cpu)
    finally:
        cli.stop_warm_worker()
    return results, Timing(tuple(griffe)), Timing(tuple(griffe_cpu))


def report(label: str, runs: list[ClientRun], griffe: Timing, griffe_cpu: Timing) -> list[str]:
    def median(values: list[float]) -> float:
        return statistics.median(values)

    lines = [
        f"prflow impact --no-llm through a warm worker on {label}: median of {len(runs)} runs",
        "",
        "client phases (seconds since the process was spawned, from PRFLOW_CLI_TIMES marks):",
    ]
    for name, first, last in PHASES:
        lines.append(f"  {name:<12} {median([r.phase(first, last) for r in runs]):6.3f}s")
    wall = median([r.wall for r in runs])
    workflow = median([r.workflow for r in runs])
    client = median([r.client for r in runs])
    cpu = median([r.cpu for r in runs])
    lines += [
        "",
        f"  whole command        {wall:6.3f}s",
        f"  workflow (server)    {workflow:6.3f}s  (close - start, as the server recorded it)",
        f"  client's own share   {client:6.3f}s  (whole command - workflow; goal <= 0.5 s)",
        f"  client CPU           {cpu:6.3f}s  (user + sys of the command's processes)",
        f"  forked from the warm fork server: {sum(r.forked for r in runs)} of {len(runs)}",
        f"  griffe check         {griffe.median:6.3f}s  wall, {griffe_cpu.median:.3f}s CPU "
        "(same pair, whole CLI process)",
        "",
        f"client CPU / griffe CPU: {cpu / griffe_cpu.median:.2f}x",
        f"ratio client share / griffe check (wall, same run): {client / griffe.median:.2f}x",
    ]
    return lines


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.impact.client_time",
        description="The prflow CLI's own time with a warm worker, apart from the workflow's.",
    )
    parser.add_argument("--runs", type=int, default=7, help="warm commands timed (default 7)")
    parser.add_argument(
        "--pair", default=DEFAULT_PAIR, help=f"Python release pair (default {DEFAULT_PAIR})"
    )
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    pairs = [p for p in ACCURACY_PAIRS if isinstance(p, PythonPair) and p.package == args.pair]
    if not pairs:
        print(f"bench: no Python release pair named {args.pair!r}", file=sys.stderr)
        return 2
    try:
        runs, griffe, griffe_cpu = measure(pairs[0], WorkDir(args.work_dir.resolve()), args.runs)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    print("\n".join(report(pairs[0].label, runs, griffe, griffe_cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
