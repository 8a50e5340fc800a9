"""Run the workspace's own tests in the sandbox, time-capped, with per-test outcomes.

The worktree comes from :func:`activities.workspace.materialise` (any worker
can rebuild it) and is copied to a private directory for the run, so what the
tests write never leaks into the cached worktree or another run. The test
environment is built once per dependency-spec hash (:mod:`activities.test_envs`;
that install step is the only one with network) and mounted read-only. The
tests run through :func:`activities.sandbox.run_sandboxed`: the copy is the
only writable path, the environment comes from an allow-list, and the limits
and the time cap end a hostile run with a clear outcome. Output and per-test
outcomes go to the blob store.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeats import heartbeating
from activities.sandbox import (
    SandboxCommand,
    node_options,
    read_written,
    run_sandboxed,
    sandbox_tools,
)
from activities.test_envs import ensure_env, interpreter_binds
from activities.workspace import copy_worktree
from prflow.config import cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.sandbox.choice import choose
from prflow.sandbox.layout import Bind
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
from prflow.test_runs.results import output_tail, read_results
from prflow.tools.paths import resolve_inside
from prflow.tools.reader import ToolError


def _runner(
    spec: EnvSpec, env_dir: Path, work: Path, report: Path
) -> tuple[dict[str, str], list[str], list[Bind]]:
    """The runner's own variables, its PATH entries, and the read-only binds it needs."""
    binds = [Bind(str(env_dir), str(env_dir))]
    if spec.kind == ProjectKind.python:
        paths = [str(work / "src"), str(work)] if (work / "src").is_dir() else [str(work)]
        env = {
            "VIRTUAL_ENV": str(env_dir),
            "PYTHONPATH": ":".join(paths),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        return env, [str(env_dir / "bin")], [*binds, *interpreter_binds()]
    modules = work / "node_modules"
    if not modules.exists():
        modules.symlink_to(env_dir / "node_modules")
    env = {"JEST_JUNIT_OUTPUT_FILE": str(report), **node_options()}
    return env, [str(env_dir / "node_modules" / ".bin")], binds


def run_tests_in(db_url: str, inp: TestRunInput) -> TestRunResult:
    """Materialise, build or reuse the environment, run sandboxed, store output and outcomes."""
    with tempfile.TemporaryDirectory(prefix="prflow-tests-") as scratch:
        work = copy_worktree(db_url, inp.workspace, Path(scratch) / "tree")

        def read(name: str) -> bytes | None:
            """A file of the tree; a link leading out of it reads as absent (the worker
            reads these on the host, outside the sandbox)."""
            try:
                path = resolve_inside(work, name)
            except ToolError:
                return None
            return path.read_bytes() if path.is_file() else None

        spec = detect(read, sys.executable)
        if spec is None:
            raise UserError(
                "cannot tell how to run this repository's tests (no pyproject.toml, "
                "requirements file or package.json); pass --test-command"
            )
        out = Path(scratch) / "out"
        out.mkdir()
        report = out / "junit.xml"
        command = runner_command(spec, str(report), inp.selection, inp.command)
        tools = sandbox_tools()
        mode = inp.sandbox or cached_settings().sandbox.mode
        choice = choose(mode, tools, allow_unsandboxed=inp.allow_unsandboxed)
        env_dir = ensure_env(spec, work, inp.install_timeout_seconds, choice, tools)
        runner_env, path_prefix, binds = _runner(spec, env_dir, work, report)
        run = run_sandboxed(
            SandboxCommand(
                argv=command.argv,
                cwd=str(work),
                choice=choice,
                timeout_seconds=inp.timeout_seconds,
                binds=[Bind(str(work), str(work), True), Bind(str(out), str(out), True), *binds],
                env={**runner_env, **command.env},
                path_prefix=path_prefix,
            ),
            tools,
        )
        text = run.output
        results = read_results(read_written(report), text)
        if results.note:
            text += f"\n[prflow: {results.note}]\n"
        outcomes_key = (
            put_json(db_url, [o.model_dump(mode="json") for o in results.outcomes])
            if results.basis == ResultBasis.junit
            else None
        )
    return TestRunResult(
        sandbox=run.report.kind,
        command=command.argv,
        exit_code=run.exit_code,
        timed_out=run.timed_out,
        counts=results.counts,
        outcomes_key=outcomes_key,
        output_key=put_text(db_url, text),
        env_hash=spec.hash,
        seconds=run.seconds,
        sandbox_report=run.report,
        limit_hit=run.limit_hit,
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
    """The workspace's tests in the sandbox; schedule with a heartbeat timeout
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
