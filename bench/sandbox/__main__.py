"""``python -m bench.sandbox``: isolation properties held, and what the sandbox costs a suite.

Part 1 builds the probe repository of ``tests/support/sandbox_probe.py`` (one
test per isolation property, aimed at a canary secret in the environment, a
planted GitHub CLI token and SSH key in ``$HOME``, prflow's data and cache
directories, the repository's ``.git``, a sibling directory and a server on
the worker's loopback) and runs it through ``run_tests_in``; a property holds
when its test passed and nothing it wrote reached the host.

Part 2 times attrs 25.3.0's own suite (1,347 tests, the sdist from PyPI as in
``bench.test_runs``) with the same venv and the same command line, alternately
through ``run_sandboxed`` (the full sandbox: two bubblewrap layers when root,
prlimit, bounded output) and as a plain ``python -m pytest`` subprocess in
the same tree, after the start-up of one command (``true``) both ways. Both arms
run the suite under a small wrapper that prints the CPU seconds of the tests'
processes: on a shared machine wall time swings with other people's load, the
work the tests do does not. The last line is the ratio of the medians, CPU first.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import sys
import time
from pathlib import Path

from bench.test_runs.__main__ import make_repo

WORK = Path(__file__).resolve().parents[1] / ".work" / "sandbox"
CPU = re.compile(r"^tests' CPU ([0-9.]+) s$", re.MULTILINE)
# Runs the suite and prints the CPU seconds of its processes: the same in both arms, so
# the sandbox's effect on the tests' work shows even when other load stretches wall time.
CPU_WRAPPER = [
    "python",
    "-c",
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:])\n"
    "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    'print(f"tests\' CPU {r.ru_utime + r.ru_stime:.3f} s")',
]
SUMMARY = re.compile(r"(\d+) (?:passed|failed|skipped|xfailed|xpassed|errors?)\b")


def _isolated_home(state: Path) -> None:
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    for name in ("TEMPORAL_ADDRESS", "DATABASE_URL"):
        os.environ.pop(name, None)
    os.environ["PRFLOW_DATA_DIR"] = str(state / "data")
    os.environ["PRFLOW_DATABASE_URL"] = f"sqlite:///{state / 'prflow.db'}"
    os.environ["PRFLOW_CACHE_DIR"] = str(state / "cache")


def properties(mode: str) -> tuple[int, int]:
    """Held / total isolation properties in ``mode``, one line per property."""
    from activities.test_runs import outcomes_of, run_tests_in
    from activities.workspace import open_workspace
    from prflow.config import cached_settings
    from prflow.sandbox.models import SandboxMode
    from prflow.test_runs.models import Outcome, TestRunInput
    from prflow.workspace.models import WorkspaceOpenInput
    from tests.support.sandbox_probe import (
        PROPERTIES,
        host_breaches,
        snapshot,
        stage_probe,
    )

    state = WORK / "probe"
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    facts = stage_probe(
        state,
        data_dir=state / "data",
        cache_dir=state / "cache",
        ledger=state / "prflow.db",
        port=server.getsockname()[1],
        processes=cached_settings().sandbox.limits.processes,
    )
    os.environ["HOME"] = facts.worker_home
    for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "PRFLOW_WEBHOOK_SECRET"):
        os.environ[name] = facts.canary
    db = cached_settings().resolved_database_url()
    ref = open_workspace(WorkspaceOpenInput(repo=facts.repo, run_id="bench-probe"))
    control = ["tests/test_isolation.py::test_control"]
    sandbox = SandboxMode(mode)
    run_tests_in(db, TestRunInput(workspace=ref, selection=control, sandbox=sandbox))
    before = snapshot(facts)
    result = run_tests_in(db, TestRunInput(workspace=ref, sandbox=sandbox, timeout_seconds=300))
    server.close()
    assert result.outcomes_key is not None and result.sandbox_report is not None
    outcomes = {o.id.rsplit("::", 1)[-1]: o for o in outcomes_of(db, result.outcomes_key)}
    breaches = host_breaches(facts, before)
    held = 0
    print(f"sandbox: {result.sandbox_report.summary()}")
    for name, meaning in PROPERTIES.items():
        outcome = outcomes.get(f"test_{name}")
        ok = outcome is not None and outcome.outcome == Outcome.passed and not breaches[name]
        held += ok
        print(f"  {'held ' if ok else 'BROKE'}  {name:<20} {meaning}")
    return held, len(PROPERTIES)


Timing = tuple[float, float]
"""Wall seconds of the run, CPU seconds of the tests' processes."""


def suite(runs: int) -> tuple[list[Timing], list[Timing], int]:
    """Timings of attrs' suite sandboxed and plain (alternating), and its test count."""
    import subprocess

    from activities.sandbox import SandboxCommand, run_sandboxed, sandbox_tools
    from activities.test_envs import ensure_env, interpreter_binds
    from prflow.sandbox.choice import choose
    from prflow.sandbox.layout import Bind
    from prflow.sandbox.models import SandboxMode
    from prflow.test_runs.environment import detect

    source = make_repo()
    tree = WORK / "attrs-tree"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(source, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))

    def read(name: str) -> bytes | None:
        return (tree / name).read_bytes() if (tree / name).is_file() else None

    spec = detect(read, sys.executable)
    assert spec is not None
    tools = sandbox_tools()
    choice = choose(SandboxMode.bwrap, tools, allow_unsandboxed=False)
    env_dir = ensure_env(spec, tree, 1800, choice, tools)
    argv = [*CPU_WRAPPER, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    runner = {
        "VIRTUAL_ENV": str(env_dir),
        "PYTHONPATH": f"{tree / 'src'}:{tree}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    path = f"{env_dir / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    binds = [Bind(str(tree), str(tree), True), Bind(str(env_dir), str(env_dir))]
    binds += interpreter_binds()
    sandboxed, plain, count = [], [], 0
    for _ in range(runs):
        run = run_sandboxed(
            SandboxCommand(
                argv=argv,
                cwd=str(tree),
                choice=choice,
                timeout_seconds=1800,
                binds=binds,
                env=runner,
                path_prefix=[str(env_dir / "bin")],
            ),
            tools,
        )
        sandboxed.append((run.seconds, float(CPU.findall(run.output)[-1])))
        summary = next(line for line in reversed(run.output.splitlines()) if " passed" in line)
        count = sum(int(n) for n in SUMMARY.findall(summary))
        started = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=tree,
            env={**runner, "PATH": path, "HOME": os.environ["HOME"], "LANG": "C.UTF-8"},
            capture_output=True,
            check=False,
            text=True,
        )
        plain.append((time.monotonic() - started, float(CPU.findall(done.stdout)[-1])))
    print(f"sandbox of the suite: {run.report.summary()}")
    return sandboxed, plain, count


def startup(runs: int = 15) -> tuple[float, float]:
    """Median milliseconds to run ``true`` in the full sandbox and as a plain subprocess."""
    import subprocess

    from activities.sandbox import SandboxCommand, run_sandboxed, sandbox_tools
    from prflow.sandbox.choice import choose
    from prflow.sandbox.models import SandboxMode

    tools = sandbox_tools()
    choice = choose(SandboxMode.bwrap, tools, allow_unsandboxed=False)
    boxed, plain = [], []
    for _ in range(runs):
        started = time.monotonic()
        run_sandboxed(SandboxCommand(argv=["true"], cwd="/", choice=choice, timeout_seconds=60))
        boxed.append(time.monotonic() - started)
        started = time.monotonic()
        subprocess.run(["true"], check=True)
        plain.append(time.monotonic() - started)
    return statistics.median(boxed) * 1000, statistics.median(plain) * 1000


def _shown(timings: list[Timing], which: int) -> str:
    return ", ".join(f"{t[which]:.2f}" for t in timings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sandbox")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", choices=["bwrap", "network-only", "none"], default="bwrap")
    args = parser.parse_args(argv)
    runs = args.runs
    _isolated_home(WORK / "probe")
    held, total = properties(args.mode)
    if args.mode != "bwrap":
        print(f"isolation properties held in mode {args.mode}: {held}/{total}")
        return 0
    boxed_ms, plain_ms = startup()
    sandboxed, plain, count = suite(runs)
    box, anchor = (statistics.median(w for w, _ in arm) for arm in (sandboxed, plain))
    box_cpu, anchor_cpu = (statistics.median(c for _, c in arm) for arm in (sandboxed, plain))
    print(f"isolation properties held: {held}/{total}")
    print(f"start-up of one command: sandboxed {boxed_ms:.0f} ms, plain {plain_ms:.1f} ms")
    print(f"attrs 25.3.0 suite, {count} tests, median of {runs}:")
    print(f"  sandboxed (run_sandboxed, full bwrap)  wall {box:6.2f} s  {_shown(sandboxed, 0)}")
    print(f"  anchor: plain python -m pytest         wall {anchor:6.2f} s  {_shown(plain, 0)}")
    print(f"  sandboxed, the tests' processes        CPU  {box_cpu:6.2f} s  {_shown(sandboxed, 1)}")
    print(f"  anchor, the tests' processes           CPU  {anchor_cpu:6.2f} s  {_shown(plain, 1)}")
    print(
        f"sandboxed / plain pytest: CPU {box_cpu / anchor_cpu:.3f}x, "
        f"wall {box / anchor:.3f}x (medians)"
    )
    return 0 if held == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
