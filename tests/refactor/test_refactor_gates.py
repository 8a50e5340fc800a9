"""What a refactor run may call validated, on the real workflow: a rename split across steps
finishes (each step judged by what it owns), and every run that cannot validate ends aborted
with its report and the user's tree untouched (every step failed, no valid plan, no tests)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.refactor.run_models import RefactorPhase, RefactorResult, RunStatus
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_runs import artifact, refactor_request, start_refactor, tree_bytes
from tests.support.rename_repo import (
    DIRECTIVE,
    PLANNER_KEY,
    TARGET,
    build_notes_repo,
    executor_key,
    left_behind_script,
    nonsense_script,
    planner,
    rename_turns,
    split_rename_script,
    step,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240


async def run_refactor(
    client: Client, settings: Settings, repo: Path, run_id: str, **fields: object
) -> RefactorResult:
    request = refactor_request(settings, repo, directive=DIRECTIVE).model_copy(update=fields)
    async with run_worker(client, settings):
        handle = await start_refactor(client, settings, request, run_id)
        return await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)


def assert_aborted_with_reports(
    result: RefactorResult, repo: Path, before: dict[str, bytes]
) -> str:
    assert result.status == RunStatus.aborted, result.reason
    assert not result.applied and tree_bytes(repo) == before, "the user's tree is untouched"
    report = json.loads(artifact(result, "validation-report.json"))
    assert report["status"] == "aborted" and report["reason"] == result.reason
    summary = artifact(result, "pr-summary.md")
    assert "## Why it stopped" in summary and "Nothing was written to your working tree" in summary
    return summary


async def test_a_rename_split_across_steps_finishes_with_the_exact_target(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_notes_repo(tmp_path / "notes")
    scripted_anthropic.route(split_rename_script())
    result = await run_refactor(temporal_client, temporal_settings, repo, "gates-split", apply=True)

    assert result.status == RunStatus.validated, result.reason
    assert [(t.task_id, t.status, t.attempts) for t in result.tasks] == [
        ("reexport", "done", 1),
        ("define", "done", 1),
        ("tests", "done", 1),
    ]
    reexport = result.tasks[0]
    # its import names what "define" defines; its change breaks what "tests" imports
    assert reexport.waits_for == ["define", "tests"]
    assert any("(left for step define)" in a for a in reexport.audit)
    assert result.applied
    assert {p: (repo / p).read_text() for p in TARGET} == TARGET


async def test_a_model_that_writes_nonsense_aborts_and_writes_nothing(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_notes_repo(tmp_path / "notes")
    before = tree_bytes(repo)
    scripted_anthropic.route(nonsense_script(attempts=2))
    result = await run_refactor(
        temporal_client, temporal_settings, repo, "gates-nonsense", apply=True, max_retries=1
    )

    summary = assert_aborted_with_reports(result, repo, before)
    assert result.reason.startswith("every step failed (1 of 1): rename: rolled back after 2")
    assert "does not parse" in result.reason
    assert "- Step rename: 2 attempts, rolled_back" in summary


async def test_a_step_that_leaves_a_file_of_its_plan_unchanged_fails_and_the_run_aborts(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    """The tests step names two files and changes one, twice, without saying the other needs
    no change: the step fails after its re-ask, so the run cannot validate or apply."""
    repo = build_notes_repo(tmp_path / "notes")
    before = tree_bytes(repo)
    scripted_anthropic.route(left_behind_script(declared=False, attempts=2))
    result = await run_refactor(
        temporal_client, temporal_settings, repo, "gates-left", apply=True, max_retries=1
    )

    summary = assert_aborted_with_reports(result, repo, before)
    tests = next(t for t in result.tasks if t.task_id == "tests")
    assert (tests.status, tests.attempts) == ("rolled_back", 2)
    assert (
        "tests/test_report.py: the step's plan lists it to edit and the step left it "
        "unchanged" in tests.reason
    )
    assert "- Step tests: 2 attempts, rolled_back" in summary
    feedback = scripted_anthropic.requests_of(executor_key("tests", 2))[0]
    assert "left it unchanged" in json.dumps(feedback.body), "the re-ask says why"


async def test_no_valid_plan_after_re_asking_ends_aborted_with_what_was_refused(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_notes_repo(tmp_path / "notes")
    before = tree_bytes(repo)
    bad = {"summary": "s", "tasks": [step("rename", ["notes/stor.py"], [])]}
    scripted_anthropic.route({PLANNER_KEY: planner(bad)})
    result = await run_refactor(temporal_client, temporal_settings, repo, "gates-noplan")

    summary = assert_aborted_with_reports(result, repo, before)
    assert result.reason.startswith("the planner gave no valid plan in 3 attempts")
    assert "Did you mean notes/store.py" in result.reason
    assert summary.count("- Planner attempt") == 3
    report = json.loads(artifact(result, "validation-report.json"))
    assert [a["attempt"] for a in report["planner"]] == [1, 2, 3]
    assert not scripted_anthropic.requests_of(executor_key("rename")), "no step ran"


async def test_a_test_command_that_finds_no_tests_stops_before_any_step(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_notes_repo(tmp_path / "notes")
    before = tree_bytes(repo)
    scripted_anthropic.route(split_rename_script())
    result = await run_refactor(
        temporal_client,
        temporal_settings,
        repo,
        "gates-no-tests",
        test_command="python -m pytest -q -k no_such_test",
    )

    assert_aborted_with_reports(result, repo, before)
    assert result.reason.startswith("the test command found no tests at the base commit")
    assert not scripted_anthropic.requests_of(executor_key("reexport")), "nothing was paid for"


async def test_a_budget_cut_during_planning_ends_aborted_with_its_report(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    repo = build_notes_repo(tmp_path / "notes")
    before = tree_bytes(repo)
    reading = [Turn(tool_uses=[ToolUse("read_file", {"path": "notes/store.py"})])] * 3
    scripted_anthropic.route({PLANNER_KEY: reading})
    request = refactor_request(temporal_settings, repo, directive=DIRECTIVE, dry_run=True)
    request.plans[RefactorPhase.planning].caps.iterations = 1
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "gates-cut")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert_aborted_with_reports(result, repo, before)
    assert result.reason == "the planning was cut by its iterations cap; no plan"
    assert len(scripted_anthropic.requests_of(PLANNER_KEY)) == 1, "no re-ask past the cap"


EXIT_STATUS_RUNNER: dict[str, str | bytes | None] = {
    "run_checks.py": (
        '"""The project\'s own check: runs the tests and says only pass or fail."""\n\n'
        "import os\nimport subprocess\nimport sys\n\n"
        'env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}\n'
        "sys.exit(\n"
        "    subprocess.call(\n"
        '        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],\n'
        "        stdout=subprocess.DEVNULL,\n"
        "        stderr=subprocess.DEVNULL,\n"
        "        env=env,\n"
        "    )\n"
        ")\n"
    )
}


async def test_side_by_side_test_steps_under_a_command_that_reports_only_its_exit_status(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
) -> None:
    """Each test file is its own step, both after the definition: each starts from a tree
    where the other's file still fails, and the command says nothing but its exit status.
    No step can be judged alone; the final run (base passing, result passing) decides."""
    repo = build_notes_repo(tmp_path / "notes", EXIT_STATUS_RUNNER)
    plan = {
        "summary": "Re-export, definition, then each test file beside the other.",
        "tasks": [
            step("reexport", ["notes/__init__.py"], []),
            step("define", ["notes/store.py", "notes/report.py"], ["reexport"]),
            step("tests-store", ["tests/test_store.py"], ["define"]),
            step("tests-report", ["tests/test_report.py"], ["define"]),
        ],
    }
    scripted_anthropic.route(
        {
            PLANNER_KEY: planner(plan),
            executor_key("reexport"): rename_turns(["notes/__init__.py"]),
            executor_key("define"): rename_turns(["notes/store.py", "notes/report.py"]),
            executor_key("tests-store"): rename_turns(["tests/test_store.py"]),
            executor_key("tests-report"): rename_turns(["tests/test_report.py"]),
        }
    )
    result = await run_refactor(
        temporal_client,
        temporal_settings,
        repo,
        "gates-exit-status",
        apply=True,
        test_command="python run_checks.py",
    )

    assert result.status == RunStatus.validated, result.reason
    assert {t.task_id: (t.status, t.attempts) for t in result.tasks} == {
        "reexport": ("done", 1),
        "define": ("done", 1),
        "tests-store": ("done", 1),
        "tests-report": ("done", 1),
    }
    assert {p: (repo / p).read_text() for p in TARGET} == TARGET
    report = json.loads(artifact(result, "validation-report.json"))
    assert report["tests"]["compared"] == "exit_status", report["tests"]
