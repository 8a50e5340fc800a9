"""``prflow refactor`` as a user runs it: the installed console script against a real worker,
scripted model turns, a real repository; artifacts on disk, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prflow.config import Settings
from tests.support.cli_runs import CliRun, client_environment, run_prflow
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.refactor_repo import DIRECTIVE, async_script, build_storage_repo
from tests.support.refactor_runs import tree_bytes
from tests.support.rename_repo import DIRECTIVE as RENAME
from tests.support.rename_repo import (
    PLANNER_KEY,
    build_notes_repo,
    left_behind_script,
    nothing_script,
)
from tests.support.sample_repos import git
from tests.support.scripted_anthropic import ScriptedAnthropic, Turn, unauthorized

pytestmark = pytest.mark.temporal


def _one_error(run: CliRun, code: int) -> str:
    assert run.code == code, run.describe()
    (line,) = run.stderr_lines
    assert line.startswith("prflow: error: "), run.describe()
    return line


async def test_usage_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    env = client_environment(Settings(), tmp_path / "home")
    repo = build_storage_repo(tmp_path / "notes")
    no_directive = await run_prflow("refactor", "--repo", str(repo), env=env)
    both = await run_prflow(
        "refactor",
        "--repo",
        str(repo),
        "--directive",
        "x y z",
        "--directive-file",
        "d.md",
        env=env,
    )
    dry_apply = await run_prflow(
        "refactor",
        "--repo",
        str(repo),
        "--directive",
        DIRECTIVE,
        "--dry-run",
        "--apply",
        env=env,
    )
    bad_format = await run_prflow(
        "refactor", "--repo", str(repo), "--directive", DIRECTIVE, "--format", "xml", env=env
    )
    assert "--directive TEXT or --directive-file PATH" in _one_error(no_directive, 2)
    assert "exactly one" in _one_error(both, 2)
    assert "a dry run writes nothing" in _one_error(dry_apply, 2)
    assert "choose md or json" in _one_error(bad_format, 2)


async def test_apply_and_branch_write_only_after_validation(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_settings: Settings,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
) -> None:
    scripted_anthropic.route(async_script())
    await start_worker_process(temporal_settings)
    env = client_environment(temporal_settings, tmp_path / "home")
    repo = build_storage_repo(tmp_path / "notes")
    out = tmp_path / "out"
    run = await run_prflow(
        "refactor",
        "--repo",
        str(repo),
        "--directive",
        DIRECTIVE,
        "--output",
        str(out),
        "--apply",
        "--branch",
        "refactor/async-io",
        "--verbose",
        "--allow-unsandboxed",
        "--quiet",
        env=env,
    )

    assert run.code == 0, run.describe()
    assert "validated" in run.stderr_lines[-1] and "applied" in run.stderr_lines[-1]
    assert sorted(p.name for p in (out / "diffs").iterdir()) == [
        "app__report.py.patch",
        "app__service.py.patch",
        "storage__files.py.patch",
        "tests__test_files.py.patch",
        "tests__test_service.py.patch",
    ]
    assert (out / "pr-summary.md").read_text().startswith("# Convert the sync file operations")
    report = json.loads((out / "validation-report.json").read_text())
    assert report["status"] == "validated" and report["tests"]["pass_rate"] == 1.0
    assert json.loads((out / "agent-log.json").read_text())["agents"]
    assert "async def read_note" in (repo / "storage/files.py").read_text()
    branch_file = git(repo, "show", "refactor/async-io:app/service.py")
    assert "await read_note(src)" in branch_file


async def test_a_dirty_tree_is_never_written_and_detach_then_attach_follows_the_run(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_settings: Settings,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
) -> None:
    scripted_anthropic.route(async_script())
    await start_worker_process(temporal_settings)
    env = client_environment(temporal_settings, tmp_path / "home")
    repo = build_storage_repo(tmp_path / "notes")
    (repo / "README.md").write_text("# notes\n\nlocal edit in progress\n")
    before = tree_bytes(repo)
    started = await run_prflow(
        "refactor",
        "--repo",
        str(repo),
        "--directive",
        DIRECTIVE,
        "--apply",
        "--allow-unsandboxed",
        "--detach",
        env=env,
    )
    assert started.code == 0, started.describe()
    run_id = started.stdout.strip()
    assert run_id.startswith("refactor:notes-")
    out = tmp_path / "out"
    attached = await run_prflow(
        "refactor", "--attach", run_id, "--output", str(out), "--quiet", env=env
    )

    line = _one_error(attached, 2) if len(attached.stderr_lines) == 1 else attached.stderr_lines[-1]
    assert attached.code == 2, attached.describe()
    assert "clean" in line or "uncommitted" in line or "local changes" in line, line
    assert tree_bytes(repo) == before, "a refused --apply leaves the tree byte-identical"
    assert (out / "pr-summary.md").is_file() and (out / "diffs").is_dir(), "artifacts kept"


async def test_each_outcome_has_its_exit_code_and_its_report_and_no_write(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_settings: Settings,
    start_worker_process: WorkerProcessFactory,
    tmp_path: Path,
) -> None:
    """Nothing to change (0, the planner's reason), aborted by a test file left behind (1, the
    regressed test named with its step and file) and a model that cannot be reached (3)."""
    await start_worker_process(temporal_settings)
    env = client_environment(temporal_settings, tmp_path / "home")

    async def refactor(name: str, routes: dict[str, list[Turn]]) -> tuple[CliRun, Path, bool]:
        scripted_anthropic.route(routes)
        repo = build_notes_repo(tmp_path / name)
        before = tree_bytes(repo)
        out = tmp_path / f"out-{name}"
        args = ["--repo", str(repo), "--directive", RENAME, "--output", str(out), "--apply"]
        run = await run_prflow(
            "refactor", *args, "--max-retries", "0", "--allow-unsandboxed", "--quiet", env=env
        )
        return run, out, tree_bytes(repo) == before

    nothing, out, untouched = await refactor(
        "nothing", nothing_script("load_note already exists; read_note is its alias")
    )
    assert nothing.code == 0 and untouched, nothing.describe()
    assert "no_change: the planner found nothing to change" in nothing.stderr_lines[-1]
    assert "## Why nothing changed" in (out / "pr-summary.md").read_text()
    assert json.loads((out / "validation-report.json").read_text())["status"] == "no_change"

    left, out, untouched = await refactor("left", left_behind_script())
    assert left.code == 1 and untouched, left.describe()
    assert "aborted: 1 tests regressed" in left.stderr_lines[-1]
    report = json.loads((out / "validation-report.json").read_text())
    assert report["tests"]["regressions"] == [
        {
            "test": "tests.test_report::test_read_is_patched",
            "kind": "regressed",
            "file": "tests/test_report.py",
            "steps": ["rename"],
        }
    ]
    assert (out / "diffs").is_dir() and "## Why it stopped" in (out / "pr-summary.md").read_text()

    down = [Turn(faults=[unauthorized()] * 4, text="never")]
    failed, out, untouched = await refactor("down", {PLANNER_KEY: down})
    assert failed.code == 3 and untouched, failed.describe()
    assert "model calls failed" in failed.stderr_lines[-1], failed.describe()
