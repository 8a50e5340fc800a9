"""A read never creates a ledger; an unreachable ledger is reported before a run starts."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli_runs import embedded_environment, free_port, run_prflow
from tests.support.sample_repos import build_sample_repo


async def test_costs_on_a_mistyped_sqlite_path_is_one_line_and_creates_nothing(
    tmp_path: Path,
) -> None:
    env = embedded_environment(tmp_path / "home", free_port(), free_port())
    missing = tmp_path / "nonexistent" / "dir" / "x.db"
    run = await run_prflow("costs", "--database-url", f"sqlite:///{missing}", env=env)
    assert run.code == 2, run.describe()
    [line] = run.stderr_lines
    assert "does not exist" in line
    assert not (tmp_path / "nonexistent").exists()


async def test_costs_on_a_missing_file_reports_nothing_and_creates_no_file(
    tmp_path: Path,
) -> None:
    env = embedded_environment(tmp_path / "home", free_port(), free_port())
    run = await run_prflow("costs", "--database-url", f"sqlite:///{tmp_path / 'x.db'}", env=env)
    assert run.code == 0, run.describe()
    assert "No LLM attempts recorded" in run.stdout
    assert not (tmp_path / "x.db").exists()


async def test_an_unreachable_ledger_is_exit_2_before_a_run_starts(tmp_path: Path) -> None:
    env = embedded_environment(tmp_path / "home", free_port(), free_port())
    env["PRFLOW_DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:{free_port()}/prflow"
    repo = build_sample_repo(tmp_path / "shop")
    run = await run_prflow(
        "impact", "--repo", str(repo), "--base", "base", "--head", "feature", env=env
    )
    assert run.code == 2, run.describe()
    [line] = run.stderr_lines
    assert "ledger database" in line and "DATABASE_URL" in line
    assert not (tmp_path / "home" / "data" / "temporal.db").exists(), "no server was started"
