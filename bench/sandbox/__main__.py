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
the same tree, after the start-up of one command (``true``) both ways. The last
line is the ratio of the medians and of the best runs (on a shared machine the
best runs are the least disturbed by other people's load).
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
SUMMARY = re.compile(r"(\d+) (?:passed|failed|skipped|xfailed|xpassed|errors?)\b")


def _isolated_home(state: Path) -> None:
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    for name in ("TEMPORAL_ADDRESS", "DATABASE_URL"):
        os.environ.pop(name, None)
    os.environ["PRFLOW_DATA_DIR"] = str(state / "data")
    os.environ["PRFLOW_DATABASE_URL"] = f"sqlite:///{state / 'prflow.db'}"
    os.environ["PRFLOW_CACHE_DIR"] = str(state / "cache")


def properties() -> tuple[int, int]:
    """Held / total isolation properties, one line per property."""
    from activities.test_runs import outcomes_of, run_tests_in
    from activities.workspace import open_workspace
    from prflow.config import cached_settings
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
    run_tests_in(db, TestRunInput(workspace=ref, selection=control))
    before = snapshot(facts)
    result = run_tests_in(db, TestRunInput(workspace=ref))
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


def suite(runs: int) -> tuple[list[float], list[float], int]:
    """Seconds of attrs' suite sandboxed and plain (alternating), and its test count."""
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
    argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
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
        sandboxed.append(run.seconds)
        count = sum(int(n) for n in SUMMARY.findall(run.output.splitlines()[-1]))
        started = time.monotonic()
        subprocess.run(
            argv,
            cwd=tree,
            env={**runner, "PATH": path, "HOME": os.environ["HOME"], "LANG": "C.UTF-8"},
            capture_output=True,
            check=False,
        )
        plain.append(time.monotonic() - started)
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


def _shown(seconds: list[float]) -> str:
    return ", ".join(f"{s:.2f}" for s in seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sandbox")
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args(argv).runs
    _isolated_home(WORK / "probe")
    held, total = properties()
    boxed_ms, plain_ms = startup()
    sandboxed, plain, count = suite(runs)
    box, anchor = statistics.median(sandboxed), statistics.median(plain)
    print(f"isolation properties held: {held}/{total}")
    print(f"start-up of one command: sandboxed {boxed_ms:.0f} ms, plain {plain_ms:.1f} ms")
    print(f"attrs 25.3.0 suite, {count} tests, median of {runs}:")
    print(f"  sandboxed (run_sandboxed, full bwrap)  {box:7.2f} s  {_shown(sandboxed)}")
    print(f"  anchor: plain python -m pytest         {anchor:7.2f} s  {_shown(plain)}")
    best = min(sandboxed) / min(plain)
    print(f"sandboxed / plain pytest: {box / anchor:.3f}x (medians), {best:.3f}x (best runs)")
    return 0 if held == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
