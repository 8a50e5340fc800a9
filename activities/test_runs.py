"""Run the workspace's own tests without network, time-capped, with per-test outcomes.

The worktree comes from :func:`activities.workspace.materialise` (any worker
can rebuild it) and is copied to a private directory for the run, so what the
tests write never leaks into the cached worktree or another run. The test
environment is built once per dependency-spec hash under
``cache_dir()/test-envs`` (a ``uv`` venv for Python, ``npm ci`` for JS); that
install step is the only one with network. The tests themselves run in a new
network namespace (bubblewrap, else ``unshare``), heartbeating, and are killed
at the time cap. Output and per-test outcomes go to the blob store.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeats import heartbeating
from activities.workspace import copy_worktree
from prflow.config import cache_dir, cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.store.blobs import get_json, put_json, put_text
from prflow.test_runs.command import runner_command
from prflow.test_runs.compare import compare
from prflow.test_runs.environment import EnvSpec, ProjectKind, detect
from prflow.test_runs.models import (
    CompareInput,
    ResultBasis,
    TestComparison,
    TestOutcome,
    TestRunInput,
    TestRunResult,
)
from prflow.test_runs.results import output_tail, read_results, report_path
from prflow.test_runs.sandbox import Tools, plan

MAX_OUTPUT_BYTES = 4_000_000
SECRET_PREFIXES = ("PRFLOW_", "TEMPORAL_", "ANTHROPIC_", "GITHUB_", "GH_", "AWS_", "DATABASE_")
SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "API_KEY", "PRIVATE_KEY", "CREDENTIAL")
POLL_SECONDS = 1.0


def _uv() -> str:
    """The ``uv`` binary the PyPI package installs beside this interpreter (else on PATH)."""
    beside = Path(sys.executable).parent / "uv"
    if beside.is_file():
        return str(beside)
    found = shutil.which("uv")
    if found is None:
        raise RuntimeError("uv is not installed: reinstall prflow (it depends on the uv package)")
    return found


@functools.cache
def sandbox_tools() -> Tools:
    """The sandboxes that actually work on this worker (each tried once per process:
    an installed bwrap or unshare may still be denied namespaces by the container)."""
    root = os.geteuid() == 0
    probe = Tools(bwrap=shutil.which("bwrap"), unshare=None, ip=None, root=root)
    bwrap = (
        probe.bwrap
        if probe.bwrap and _runs(plan(["true"], probe, allow_unsandboxed=False).argv)
        else None
    )
    probe = Tools(bwrap=None, unshare=shutil.which("unshare"), ip=shutil.which("ip"), root=root)
    works = probe.unshare and _runs(plan(["true"], probe, allow_unsandboxed=False).argv)
    return Tools(bwrap=bwrap, unshare=probe.unshare if works else None, ip=probe.ip, root=root)


def _runs(argv: Sequence[str]) -> bool:
    try:
        done = subprocess.run(list(argv), capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run_install(argv: Sequence[str], cwd: Path, timeout: float) -> None:
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", errors="replace").strip().splitlines()[-5:]
        raise UserError(
            f"installing the test dependencies failed ({' '.join(argv[:3])} ...): "
            + " | ".join(tail)
        )


def ensure_env(spec: EnvSpec, tree: Path, timeout: float) -> Path:
    """The cached environment for ``spec``, built once (the only step with network)."""
    final = cache_dir() / "test-envs" / spec.hash
    if (final / ".complete").is_file():
        return final
    with _locked(final):
        if (final / ".complete").is_file():
            return final
        staging = final.with_name(f".tmp-{spec.hash}-{uuid.uuid4().hex}")
        try:
            if spec.kind == ProjectKind.python:
                uv = _uv()
                _run_install(
                    [uv, "venv", "--quiet", "--python", sys.executable, str(staging)], tree, timeout
                )
                python = str(staging / "bin" / "python")
                args = [*spec.requirements]
                for name in spec.requirement_files:
                    args += ["-r", str(tree / name)]
                if args:
                    _run_install(
                        [uv, "pip", "install", "--quiet", "--python", python, *args], tree, timeout
                    )
            else:
                staging.mkdir(parents=True)
                for name in ("package.json", "package-lock.json", ".npmrc"):
                    if (tree / name).is_file():
                        shutil.copy2(tree / name, staging / name)
                if not (staging / "package-lock.json").is_file():
                    raise UserError("npm ci needs package-lock.json; commit the lockfile first")
                _run_install(["npm", "ci", "--no-audit", "--no-fund"], staging, timeout)
            (staging / ".complete").write_text(spec.hash)
            shutil.rmtree(final, ignore_errors=True)
            staging.rename(final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return final


def _secret(name: str) -> bool:
    upper = name.upper()
    return upper.startswith(SECRET_PREFIXES) or any(word in upper for word in SECRET_WORDS)


def _run_env(spec: EnvSpec, env_dir: Path, work: Path, report: Path) -> dict[str, str]:
    """The worker's environment minus its settings and anything that looks like a secret:
    the repository's tests are code we did not write."""
    env = {k: v for k, v in os.environ.items() if not _secret(k)}
    if spec.kind == ProjectKind.python:
        env["VIRTUAL_ENV"] = str(env_dir)
        env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        paths = [str(work / "src"), str(work)] if (work / "src").is_dir() else [str(work)]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        modules = work / "node_modules"
        if not modules.exists():
            modules.symlink_to(env_dir / "node_modules")
        env["PATH"] = f"{env_dir / 'node_modules' / '.bin'}{os.pathsep}{env.get('PATH', '')}"
        env["JEST_JUNIT_OUTPUT_FILE"] = str(report)
    return env


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_tests_in(db_url: str, inp: TestRunInput) -> TestRunResult:
    """Materialise, build or reuse the environment, run sandboxed, store output and outcomes."""
    with tempfile.TemporaryDirectory(prefix="prflow-tests-") as scratch:
        work = copy_worktree(db_url, inp.workspace, Path(scratch) / "tree")

        def read(name: str) -> bytes | None:
            path = work / name
            return path.read_bytes() if path.is_file() else None

        spec = detect(read, sys.executable)
        if spec is None:
            raise UserError(
                "cannot tell how to run this repository's tests (no pyproject.toml, "
                "requirements file or package.json); pass --test-command"
            )
        report = report_path(work)
        command = runner_command(spec, str(report), inp.selection, inp.command)
        sandbox = plan(command.argv, sandbox_tools(), allow_unsandboxed=inp.allow_unsandboxed)
        env_dir = ensure_env(spec, work, inp.install_timeout_seconds)
        output_path = Path(scratch) / "output.txt"
        started = time.monotonic()
        timed_out = False
        with output_path.open("wb") as output:
            process = subprocess.Popen(
                sandbox.argv,
                cwd=work,
                env={**_run_env(spec, env_dir, work, report), **command.env},
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                while process.poll() is None:
                    if time.monotonic() - started > inp.timeout_seconds:
                        timed_out = True
                        _kill(process)
                        break
                    if activity.in_activity():
                        activity.heartbeat()
                    time.sleep(POLL_SECONDS)
            finally:
                if process.poll() is None:
                    _kill(process)
        seconds = time.monotonic() - started
        raw = output_path.read_bytes()
        if len(raw) > MAX_OUTPUT_BYTES:
            raw = b"[... output cut to its last 4 MB ...]\n" + raw[-MAX_OUTPUT_BYTES:]
        text = raw.decode("utf-8", errors="replace")
        if timed_out:
            cap = f"{inp.timeout_seconds:.0f}s"
            text += f"\n[prflow: the tests ran past the {cap} cap and were killed]\n"
        results = read_results(report.read_bytes() if report.is_file() else None, text)
        if results.note:
            text += f"\n[prflow: {results.note}]\n"
        outcomes_key = (
            put_json(db_url, [o.model_dump(mode="json") for o in results.outcomes])
            if results.basis == ResultBasis.junit
            else None
        )
    return TestRunResult(
        sandbox=sandbox.kind,
        command=command.argv,
        exit_code=None if timed_out else process.returncode,
        timed_out=timed_out,
        counts=results.counts,
        outcomes_key=outcomes_key,
        output_key=put_text(db_url, text),
        env_hash=spec.hash,
        seconds=round(seconds, 3),
        basis=results.basis,
        summary=results.summary,
        tests_found=results.tests_found,
        output_tail=output_tail(text),
        selection_applied=command.selection_applied,
    )


def outcomes_of(db_url: str, key: str) -> list[TestOutcome]:
    return [TestOutcome.model_validate(o) for o in get_json(db_url, key)]


@activity.defn(name="run_tests")
@heartbeating
def run_tests(inp: TestRunInput) -> TestRunResult:
    """The workspace's tests in a network-less sandbox; schedule with a heartbeat timeout
    and a start-to-close above ``timeout_seconds + install_timeout_seconds``."""
    try:
        return run_tests_in(cached_settings().resolved_database_url(), inp)
    except UserError as exc:
        raise ApplicationError(exc.message, type=USER_ERROR_TYPE, non_retryable=True) from exc


@activity.defn(name="compare_test_runs")
@heartbeating
def compare_test_runs(inp: CompareInput) -> TestComparison:
    """Before/after per test from two runs' stored outcomes."""
    db_url = cached_settings().resolved_database_url()
    return compare(
        outcomes_of(db_url, inp.before_outcomes_key), outcomes_of(db_url, inp.after_outcomes_key)
    )


TEST_RUN_ACTIVITIES = [run_tests, compare_test_runs]
"""Main-queue activities a kind lists (``"activities.test_runs:TEST_RUN_ACTIVITIES"``)."""
