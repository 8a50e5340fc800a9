"""The refactor kind end to end on the real Temporal dev server, scripted model turns, a real
repository: planner → tasks as child workflows → workspace edits → audit → artifacts."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow import search_attributes as sa
from prflow.config import Settings
from prflow.refactor.run_models import RunStatus
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_repo import PLAN, PLANNER_KEY, async_script, build_storage_repo
from tests.support.refactor_runs import (
    apply_check,
    artifact,
    refactor_request,
    start_refactor,
    tree_bytes,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240


@pytest.fixture
def storage_repo(tmp_path: Path) -> Path:
    return build_storage_repo(tmp_path / "notes")


async def test_a_dry_run_plans_edits_and_writes_clean_patches(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    storage_repo: Path,
) -> None:
    scripted_anthropic.route(async_script())
    request = refactor_request(temporal_settings, storage_repo, dry_run=True, verbose=True)
    before = tree_bytes(storage_repo)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-dry")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    assert [t.task_id for t in result.tasks] == ["core", "callers", "tests"]
    assert all(t.status == "done" and t.attempts == 1 for t in result.tasks)
    assert result.changed_files == [
        "app/report.py",
        "app/service.py",
        "storage/files.py",
        "tests/test_files.py",
        "tests/test_service.py",
    ]
    for path in result.changed_files:
        patch = artifact(result, "diffs/" + path.replace("/", "__") + ".patch")
        check = apply_check(storage_repo, patch)
        assert check.returncode == 0, check.stderr
    summary = artifact(result, "pr-summary.md")
    for heading in (
        "# Convert the sync file operations",
        "## Summary",
        "## Changes",
        "## Risk",
        "## Rollback",
    ):
        assert heading in summary
    report = json.loads(artifact(result, "validation-report.json"))
    assert report["status"] == "validated" and report["tests"]["ran"] is False
    log = json.loads(artifact(result, "agent-log.json"))
    assert {a["name"] for a in log["agents"]} >= {"planner", "executor:core:1"}
    assert any(m["role"] == "assistant" for a in log["agents"] for m in a["messages"])
    after = tree_bytes(storage_repo)
    assert after == before, "a dry run never writes the user's tree"


async def test_the_whole_run_validates_with_the_suite_before_and_after(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    storage_repo: Path,
) -> None:
    scripted_anthropic.route(async_script())
    request = refactor_request(temporal_settings, storage_repo)
    before = tree_bytes(storage_repo)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-full")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    assert result.tests_before == {"passed": 3, "failed": 0, "errors": 0, "skipped": 0}
    assert result.tests_after == result.tests_before and result.pass_rate == 1.0
    # earlier steps leave the tests to the task that owns them; that task runs them
    assert [t.tests_run for t in result.tasks] == [0, 0, 3]
    report = json.loads(artifact(result, "validation-report.json"))
    assert report["tests"]["ran"] is True and report["tests"]["regressions"] == []
    assert tree_bytes(storage_repo) == before, "no --apply: the user's tree is untouched"
    attributes = (await handle.describe()).typed_search_attributes
    assert attributes.get(sa.KIND) == "refactor"
    assert attributes.get(sa.PHASE) == "artifacts"
    assert attributes.get(sa.COST_USD) == pytest.approx(result.cost_usd, rel=1e-3)
    assert result.cost_usd > 0


async def test_an_invalid_plan_is_refused_and_the_planner_asked_again(
    prflow_home: Path,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    storage_repo: Path,
) -> None:
    script = async_script()
    bad = json.loads(json.dumps(PLAN))
    bad["tasks"][0]["files"] = ["storage/file.py"]  # not in the index
    bad["tasks"][2]["depends_on"] = ["tests"]  # depends on itself
    refused = "# Your previous plan was refused"
    routes = {
        refused: script.pop(PLANNER_KEY),
        PLANNER_KEY: [Turn(tool_uses=[ToolUse("submit_refactor_plan", bad)])],
        **script,
    }
    scripted_anthropic.route(routes)
    request = refactor_request(temporal_settings, storage_repo, dry_run=True)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-reask")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    (second,) = scripted_anthropic.requests_of(refused)
    asked = json.dumps(second.body)
    assert "'storage/file.py' is not in the repository index" in asked
    assert "Did you mean storage/files.py" in asked
    assert "Task 'tests' depends on itself." in asked


async def test_open_pr_creates_one_draft_pull_request_with_the_summary_as_body(
    prflow_home: Path,
    fake_github: FakeGitHub,
    scripted_anthropic: ScriptedAnthropic,
    temporal_client: Client,
    temporal_settings: Settings,
    storage_repo: Path,
    tmp_path: Path,
) -> None:
    bare = tmp_path / "notes.git"
    await asyncio.to_thread(
        subprocess.run, ["git", "clone", "-q", "--bare", str(storage_repo), str(bare)], check=True
    )
    fake_github.add_git_repo("octo-org", "notes", bare)
    scripted_anthropic.route(async_script())
    request = refactor_request(
        temporal_settings, storage_repo, open_pr=True, pr_repo="octo-org/notes"
    )
    before = tree_bytes(storage_repo)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "refactor-pr")
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.status == RunStatus.validated, result.reason
    [pull] = fake_github.pulls("octo-org", "notes")
    assert pull.pull is not None and pull.pull.draft
    assert result.pr_url and result.branch == "prflow/refactor-refactor-pr"  # one per run
    assert pull.body == artifact(result, "pr-summary.md")
    done = await asyncio.to_thread(
        subprocess.run,
        ["git", "--git-dir", str(bare), "show", f"{result.branch}:storage/files.py"],
        capture_output=True,
        text=True,
        check=True,
    )
    shown = done.stdout
    assert "async def read_note" in shown
    assert tree_bytes(storage_repo) == before, "--open-pr never touches the checkout"
