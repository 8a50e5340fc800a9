"""Broken settings, unreachable services and absurd options: one line, exit 2, nothing written.

Each case runs the installed ``prflow`` console script in a shell with nothing
prflow-specific set except the fault under test, and checks what a user sees:
the exit code, a single ``prflow: error:`` line naming the setting to fix, no
traceback, and no report file left behind.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hostile.checks import files_under, one_line_error, plain_environment, without
from tests.support.cli_runs import client_environment, free_port, run_prflow
from tests.support.fixtures_temporal import isolated_settings
from tests.support.sample_repos import build_sample_repo

IMPACT = ("impact", "--base", "base", "--head", "feature", "--no-llm", "-q")


@dataclass(frozen=True)
class Fault:
    """One broken setup: environment, optional prflow.toml text, command and what to name."""

    env: dict[str, str]
    args: tuple[str, ...]
    names: tuple[str, ...]
    toml: str | None = None

    @property
    def impact(self) -> bool:
        return self.args[0] == "impact"


def costs(env: dict[str, str], *names: str, args: tuple[str, ...] = ()) -> Fault:
    return Fault(env, ("costs", *args), names)


def impact(env: dict[str, str], *names: str, toml: str | None = None) -> Fault:
    return Fault(env, IMPACT, names, toml)


def faults() -> dict[str, Fault]:
    dead = free_port()
    address = "TEMPORAL_ADDRESS"
    return {
        "toml syntax": Fault({}, ("costs",), ("prflow.toml", "not valid TOML"), toml="x = [\n"),
        "toml value": impact(
            {}, "budget.usd in", "prflow.toml", "valid number", toml='[budget]\nusd = "lots"\n'
        ),
        "env number": impact({"PRFLOW_BUDGET__USD": "abc"}, "PRFLOW_BUDGET__USD"),
        "env range": impact({"PRFLOW_TEMPORAL__EMBEDDED_PORT": "99999"}, "EMBEDDED_PORT", "65535"),
        "env json": costs({"PRFLOW_BUDGET": "{usd: 5"}, "PRFLOW_BUDGET", "JSON"),
        "missing config file": costs(
            {"PRFLOW_CONFIG": "/nonexistent/prflow.toml"},
            "PRFLOW_CONFIG=/nonexistent/prflow.toml",
            "does not exist",
        ),
        "config is a directory": costs({"PRFLOW_CONFIG": "/"}, "PRFLOW_CONFIG", "directory"),
        "garbage database url": costs({"DATABASE_URL": "garbage"}, "DATABASE_URL", "postgresql://"),
        "unknown database driver": costs(
            {}, "DATABASE_URL", "cannot be used", args=("--database-url", "mysql://u@db/prflow")
        ),
        "unreachable database": costs(
            {"DATABASE_URL": f"postgresql://postgres:hunter2@127.0.0.1:{dead}/prflow"},
            "cannot use the database",
            "DATABASE_URL",
            "***",
        ),
        "garbage temporal address": impact({address: "garbage"}, address, "host:port"),
        "temporal address with scheme": impact({address: "http://t:7233"}, address, "no scheme"),
        "temporal port not a number": impact({address: "localhost:abc"}, address),
        "nothing listens at temporal address": impact(
            {address: f"127.0.0.1:{dead}"}, "cannot reach Temporal", address
        ),
        "argument not utf-8": costs(
            {}, "'run-\\xff' is not valid UTF-8", args=("--workflow-id", "run-\udcff")
        ),
        "since overflows": costs(
            {}, "--since", "shorter duration", args=("--since", "99999999999d")
        ),
        "since far future offset": costs(
            {}, "--since", args=("--since", "9999-12-31T23:59:59-14:00")
        ),
    }


FAULTS = faults()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_repo(tmp_path_factory.mktemp("cli-errors") / "shop")


@pytest.mark.parametrize("name", FAULTS)
async def test_a_broken_setup_is_one_line_naming_the_setting(
    name: str, sample: Path, tmp_path: Path
) -> None:
    fault = FAULTS[name]
    workdir = tmp_path / "work"
    workdir.mkdir()
    if fault.toml is not None:
        (workdir / "prflow.toml").write_text(fault.toml, encoding="utf-8")
    output = workdir / "report.md"
    args = (*fault.args, "--repo", str(sample), "-o", str(output)) if fault.impact else fault.args
    env = plain_environment(tmp_path / "home", **fault.env)

    run = await run_prflow(*args, env=env, cwd=workdir)

    line = one_line_error(run, 2, *fault.names)
    assert "hunter2" not in line
    assert not output.exists()


async def test_an_unreachable_https_remote_is_one_line_and_leaves_no_partial_mirror(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    output = tmp_path / "report.json"
    url = f"https://127.0.0.1:{free_port()}/acme/api.git"

    run = await run_prflow(
        "impact", "--repo", url, "--base", "main", "--format", "json", "-o", str(output),
        env=plain_environment(home),
    )  # fmt: skip

    one_line_error(run, 2, "cannot reach", url, "network")
    assert not output.exists()
    assert not [p for p in files_under(home) if ".tmp-" in p], files_under(home)


async def test_a_missing_prflow_config_is_not_silently_ignored(tmp_path: Path) -> None:
    """Regression guard: with the variable unset, the same command works."""
    env = plain_environment(tmp_path / "home")
    assert (await run_prflow("costs", env=env, cwd=tmp_path)).code == 0
    run = await run_prflow(
        "costs", env={**without(env, "PRFLOW_CONFIG"), "PRFLOW_CONFIG": str(tmp_path / "x.toml")}
    )
    one_line_error(run, 2, "PRFLOW_CONFIG", "does not exist")


BUDGET_RUNS = 24
BUDGET_PARALLEL = 3


@pytest.mark.temporal
async def test_budget_never_aborts_at_exit(temporal_address: str, tmp_path: Path) -> None:
    """``prflow budget`` once died in ~1 of 8 runs with "Fatal Python error: PyGILState_Release".

    The abort happened at interpreter exit with a Temporal client still alive, so
    only repetition shows it: before the fix this loop failed nearly every time.
    """
    env = client_environment(isolated_settings(temporal_address), tmp_path / "home")
    commands = [("show", "no-such-run"), ("raise", "no-such-run", "--usd", "1")]
    runs = []
    for start in range(0, BUDGET_RUNS, BUDGET_PARALLEL):
        batch = [
            run_prflow("budget", *commands[i % 2], env=env)
            for i in range(start, start + BUDGET_PARALLEL)
        ]
        runs += await asyncio.gather(*batch)
    aborted = [run for run in runs if "Fatal Python error" in run.stderr or run.code < 0]
    assert aborted == [], aborted[0].describe() if aborted else ""
    for run in runs:
        one_line_error(run, 2, "no-such-run")
