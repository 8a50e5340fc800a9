"""``python -m bench.impact.worker_start``: how long the warm worker takes to serve.

The first ``prflow impact`` on a fresh machine waits for the warm worker it
spawns (``python -m worker.warm``: start the dev server, import and register
every workflow and activity, then write its state file). This bench times just
that wait, as :func:`worker.warm.spawn` sees it, in a child process with the
bench's scrubbed environment and empty data and cache directories, and reads
the worker's CPU seconds (user + sys, from ``/proc``) the moment it serves: on
a shared machine the CPU time moves far less with load than the wall time.
Each run stops its worker (and the dev server it owns) before the next.

Anchor: the CPU time of a bare interpreter importing the Temporal SDK's client
and worker (``python -c "import temporalio.client, temporalio.worker"``), the
floor any Python Temporal worker pays before it registers anything. The ratio
of the warm worker's CPU to it is printed last.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from bench.impact.layout import DEFAULT_ROOT, fresh_dir
from bench.impact.prflow_cli import PrflowCli

WARM_SECONDS = "600"

_SPAWN = """
import json, os, time
from prflow.config import load_settings
from worker import warm

started = time.perf_counter()
state = warm.spawn(load_settings())
wall = time.perf_counter() - started
fields = open(f"/proc/{state.pid}/stat").read().rsplit(")", 1)[1].split()
cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
warm.stop(state)
print(json.dumps({"wall": wall, "cpu": cpu}))
"""


def _one(state: Path) -> tuple[float, float]:
    cli = PrflowCli(fresh_dir(state), extra_env={"PRFLOW_TEMPORAL__WARM_SECONDS": WARM_SECONDS})
    done = subprocess.run(
        [sys.executable, "-c", _SPAWN],
        cwd=state,
        env=cli.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout.splitlines()[-1])
    return float(figures["wall"]), float(figures["cpu"])


def _sdk_import_cpu() -> float:
    """CPU seconds (user + sys) of an interpreter that only imports the Temporal SDK."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-c", "import temporalio.client, temporalio.worker"], check=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.worker_start")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    state = args.work_dir.resolve() / "state" / "worker-start"
    runs = [_one(state) for _ in range(args.runs)]
    anchor = statistics.median(_sdk_import_cpu() for _ in range(args.runs))
    walls = [wall for wall, _ in runs]
    cpus = [cpu for _, cpu in runs]
    print(f"warm worker, spawn to serving (fresh data dir, own dev server), median of {args.runs}")
    each = ", ".join(f"{wall:.2f}" for wall in walls)
    print(f"  wall  {statistics.median(walls):6.3f}s  (runs: {each})")
    cpu = statistics.median(cpus)
    print(f"  CPU   {cpu:6.3f}s  (worker process, user + sys)")
    print(f"  bare interpreter importing temporalio.client and .worker: {anchor:.3f}s CPU")
    print(f"ratio worker CPU / SDK import CPU: {cpu / anchor:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
