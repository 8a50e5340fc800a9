"""``prflow impact`` as a user runs it: the console script, a real repository, real Temporal.

One ``prflow worker`` subprocess serves the whole module (the CLI is client-only
when ``TEMPORAL_ADDRESS`` is set); one test runs the fully embedded path, where
``prflow impact`` brings up its own dev server and worker.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import jsonschema
import pytest

from prflow.impact.models import ImpactReport, LlmStatus
from tests.support.cli_runs import (
    CliRun,
    client_environment,
    embedded_environment,
    free_port,
    run_prflow,
)
from tests.support.fixtures_temporal import WorkerProcess, isolated_settings
from tests.support.sample_repos import EXPECTED_BREAKING, build_sample_repo
from tests.support.sarif_schema import sarif_schema
from worker.ports import port_is_free

pytestmark = pytest.mark.temporal

RISK_LINE = re.compile(r"\*\*Risk Score\*\*: (\d{1,3})/100 \((low|medium|high|critical)\)")
BREAKING_TABLE_HEADER = "| File | Change | Symbol | Severity | Consumers |"
RANGE = ("--base", "base", "--head", "feature")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample repository (``base`` tag, ``feature`` branch), shared by the module."""
    return build_sample_repo(tmp_path_factory.mktemp("e2e-cli") / "shop")


@pytest.fixture(scope="module")
async def cli_env(
    temporal_address: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[dict[str, str]]:
    """Environment for client-only ``prflow`` runs, with one worker subprocess serving them."""
    home = tmp_path_factory.mktemp("e2e-cli-home")
    env = client_environment(isolated_settings(temporal_address), home)
    worker = WorkerProcess(env, home / "worker.log")
    await worker.start()
    yield env
    try:
        await worker.stop()
    except TimeoutError:
        worker.kill()


@pytest.fixture(scope="module")
async def json_run(cli_env: dict[str, str], sample: Path) -> tuple[CliRun, Path]:
    """One ``--format json --output`` run, whose score the threshold tests build on."""
    target = sample.parent / "impact.json"
    run = await run_prflow(
        "impact", "--repo", str(sample), *RANGE, "--format", "json", "--output", str(target),
        env=cli_env,
    )  # fmt: skip
    return run, target


def breaking_keys(report: ImpactReport) -> set[tuple[str, str, str]]:
    return {(b.file, b.symbol, b.kind.value) for b in report.breaking_changes}


async def test_markdown_report_goes_to_stdout_and_progress_to_stderr(
    cli_env: dict[str, str], sample: Path
) -> None:
    run = await run_prflow("impact", "--repo", str(sample), *RANGE, env=cli_env)

    assert run.code == 0, run.describe()
    assert run.stdout.startswith("# PR Impact Report"), run.describe()
    match = RISK_LINE.search(run.stdout)
    assert match is not None, run.stdout
    assert 0 <= int(match[1]) <= 100
    table = run.stdout.split(BREAKING_TABLE_HEADER, 1)[1].split("\n## ", 1)[0]
    for file, symbol, _ in EXPECTED_BREAKING:
        assert any(f"`{file}`" in row and f"`{symbol}`" in row for row in table.splitlines()), (
            f"{symbol} in {file} missing from the breaking-change table:\n{table}"
        )
    # Not a terminal: progress comes as plain lines on stderr, never mixed into the report.
    assert "[static] done:" in run.stderr and "breaking" in run.stderr
    assert re.search(r"^\[report\] done: risk \d+/100", run.stderr, re.MULTILINE)
    assert "[static]" not in run.stdout and "[resolve]" not in run.stdout
    assert "Traceback" not in run.stderr


async def test_json_output_file_is_a_valid_impact_report(
    json_run: tuple[CliRun, Path], sample: Path
) -> None:
    run, target = json_run

    assert run.code == 0, run.describe()
    assert run.stdout.strip() == "", "with --output the report must not also go to stdout"
    assert f"wrote json report to {target}" in run.stderr
    report = ImpactReport.model_validate_json(target.read_text(encoding="utf-8"))
    assert breaking_keys(report) >= EXPECTED_BREAKING
    assert report.repo == str(sample)
    assert (report.base_ref, report.head_ref) == ("base", "feature")
    assert report.llm.status == LlmStatus.skipped
    assert any(s.target.endswith("legacy_rate") for s in report.stale_docs)


async def test_sarif_output_validates_against_the_official_schema(
    cli_env: dict[str, str], sample: Path, tmp_path: Path
) -> None:
    target = tmp_path / "impact.sarif"
    run = await run_prflow(
        "impact", "--repo", str(sample), *RANGE, "--format", "sarif", "-o", str(target),
        env=cli_env,
    )  # fmt: skip

    assert run.code == 0, run.describe()
    log = json.loads(target.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(sarif_schema()).validate(log)
    assert log["version"] == "2.1.0"
    located = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in log["runs"][0]["results"]
        for location in result.get("locations", [])
    }
    assert {file for file, _, _ in EXPECTED_BREAKING} <= located


async def test_threshold_fails_the_build_at_the_score_and_passes_above_it(
    json_run: tuple[CliRun, Path], cli_env: dict[str, str], sample: Path
) -> None:
    score = ImpactReport.model_validate_json(json_run[1].read_text(encoding="utf-8")).risk.score
    assert 0 < score < 100, "the sample must leave room for a passing threshold"

    at_score = await run_prflow(
        "impact", "--repo", str(sample), *RANGE, "-q", "--threshold", str(score), env=cli_env
    )
    above = await run_prflow(
        "impact", "--repo", str(sample), *RANGE, "-q", "--threshold", str(score + 1), env=cli_env
    )

    assert at_score.code == 1, at_score.describe()
    assert f"risk score {score} >= threshold {score}" in at_score.stderr
    assert RISK_LINE.search(at_score.stdout), "the report is still printed when the gate fails"
    assert above.code == 0, above.describe()
    assert "threshold" not in above.stderr


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        pytest.param(["--base", "no-such-ref", "--head", "feature"], "no-such-ref", id="bad-base"),
        pytest.param(["--repo", "{plain_dir}", "--base", "main"], "not a git", id="not-git"),
        pytest.param(["--pr", "octo-org/shop#seven"], "octo-org/shop#seven", id="bad-pr"),
        pytest.param([*RANGE, "--post"], "--pr", id="post-without-pr"),
        pytest.param([*RANGE, "--threshold", "101"], "--threshold", id="threshold-101"),
        pytest.param([*RANGE, "--colour"], "--colour", id="unknown-option"),
    ],
)
async def test_user_mistakes_exit_2_with_one_line_and_no_traceback(
    args: list[str], mentions: str, cli_env: dict[str, str], sample: Path, tmp_path: Path
) -> None:
    plain_dir = tmp_path / "just-a-folder"
    plain_dir.mkdir()
    argv = [arg.replace("{plain_dir}", str(plain_dir)) for arg in args]

    run = await run_prflow("impact", *argv, env=cli_env, cwd=sample)

    assert run.code == 2, run.describe()
    assert len(run.stderr_lines) == 1, run.describe()
    line = run.stderr_lines[0]
    assert line.startswith("prflow: error: ") and mentions in line, line
    assert "Traceback" not in run.stderr
    assert run.stdout == ""


async def test_help_lists_every_option_with_an_example(cli_env: dict[str, str]) -> None:
    run = await run_prflow("impact", "--help", env={**cli_env, "COLUMNS": "120"})

    assert run.code == 0, run.describe()
    options = [
        "--repo", "--base", "--head", "--pr", "--format", "--output", "-o", "--threshold",
        "--post", "--no-llm", "--model", "--budget-usd", "--max-iterations", "--time-limit",
        "--budget-wait", "--quiet",
    ]  # fmt: skip
    missing = [name for name in options if not re.search(rf"(?<![\w-]){name}(?![\w-])", run.stdout)]
    assert missing == [], run.stdout
    assert "Examples:" in run.stdout
    assert re.search(r"^\s+prflow impact --repo \S+ --base \S+", run.stdout, re.MULTILINE)
    assert "prflow impact --pr " in run.stdout


async def test_embedded_run_starts_its_own_temporal_and_worker(
    tmp_path: Path, sample: Path
) -> None:
    """No TEMPORAL_ADDRESS, nothing running: the one command still produces the report."""
    port, ui_port = free_port(), free_port()
    env = embedded_environment(tmp_path / "home", port, ui_port)

    run = await run_prflow("impact", *RANGE, env=env, cwd=sample)

    assert run.code == 0, run.describe()
    assert RISK_LINE.search(run.stdout), run.describe()
    assert BREAKING_TABLE_HEADER in run.stdout
    assert f"Temporal Web UI: http://127.0.0.1:{ui_port}/namespaces/default/workflows/" in (
        run.stderr
    )
    assert (tmp_path / "home" / "data" / "temporal.db").is_file(), "history is kept locally"
    assert port_is_free(port), "the dev server it started must stop with the command"
