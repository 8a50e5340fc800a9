"""What every CLI has: --version (also in --help), shell completion, and the GitHub CLI's
token when no token variable is set."""

from __future__ import annotations

import os
from pathlib import Path

from prflow import __version__
from tests.support.cli_runs import run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_TOKEN

FAKE_GH = """#!/bin/sh
echo "$@" >> "{log}"
if [ "$1 $2" = "auth token" ]; then echo "{token}"; exit 0; fi
exit 1
"""


def _env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRFLOW_", "TEMPORAL_")) and k not in ("GITHUB_TOKEN", "GH_TOKEN")
    }
    env["PRFLOW_DATA_DIR"] = str(tmp_path / "data")
    return env


async def test_version_is_printed_and_shown_in_help(tmp_path: Path) -> None:
    version = await run_prflow("--version", env=_env(tmp_path))
    assert (version.code, version.stdout.strip()) == (0, f"prflow {__version__}")
    shown = await run_prflow("--help", env=_env(tmp_path))
    assert __version__ in shown.stdout
    assert "--install-completion" in shown.stdout


async def test_completion_script_is_offered(tmp_path: Path) -> None:
    # Name the shell instead of detecting it from the parent processes (pytest's vary).
    env = _env(tmp_path) | {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    run = await run_prflow("--show-completion", "bash", env=env)
    assert run.code == 0, run.describe()
    assert "complete" in run.stdout and "prflow" in run.stdout


async def test_the_github_cli_token_is_used_when_no_variable_is_set(
    tmp_path: Path, fake_github_pr: FakeGitHub
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH.format(log=tmp_path / "gh.log", token=FAKE_GITHUB_TOKEN))
    gh.chmod(0o755)
    env = _env(tmp_path) | {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PRFLOW_GITHUB_API_URL": fake_github_pr.api_url,
    }
    run = await run_prflow("-v", "pr", "comments", "octo-org/service#5", env=env)
    assert run.code == 0, run.describe()
    notes = [line for line in run.stderr_lines if "gh auth token" in line]
    assert len(notes) == 1, run.stderr
    assert (tmp_path / "gh.log").read_text().startswith("auth token --hostname 127.0.0.1")
    quiet = await run_prflow("pr", "comments", "octo-org/service#5", env=env)
    assert quiet.code == 0 and "gh auth token" not in quiet.stderr
