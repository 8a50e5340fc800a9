"""A resumed run on another machine: a worker with empty data and cache directories rebuilds
the run's worktree from the base commit and the stored state, and runs its tests there."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client

from activities.test_runs import outcomes_of
from activities.workspace import edit_workspace, materialise, open_workspace
from prflow.config import Settings, cached_settings
from prflow.sandbox.models import SandboxKind
from prflow.test_runs.models import Outcome, TestRunInput
from prflow.workspace.edits import ReplaceEdit
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput
from tests.support.fixtures_temporal import (
    WorkerProcess,
    child_environment,
    isolated_settings,
    run_worker,
)
from tests.support.workspace_repo import build_workspace_repo
from tests.test_runs.probe_workflow import TestRunProbe, TestRunProbeInput

pytestmark = pytest.mark.temporal


async def test_a_worker_with_an_empty_data_dir_rebuilds_the_worktree_and_runs_its_tests(
    temporal_client: Client,
    temporal_address: str,
    temporal_settings: Settings,
    prflow_home: Path,
    tmp_path: Path,
) -> None:
    db = cached_settings().resolved_database_url()
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    opened = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="fresh-tests"))
    fixed = edit_workspace(
        db,
        WorkspaceEditInput(
            workspace=opened,
            edits=[
                ReplaceEdit(
                    path="tests/test_storage.py",
                    old_string="assert total([]) == -1",
                    new_string="assert total([]) == 0",
                    reason="the expectation was wrong",
                )
            ],
        ),
    )
    assert fixed.ok
    materialise(db, fixed.workspace)  # the first machine had a worktree; the second has none

    tools_settings = isolated_settings(temporal_address, temporal_settings)
    fresh = tmp_path / "fresh-machine"
    env = child_environment(tools_settings) | {
        "PRFLOW_DATA_DIR": str(fresh / "data"),
        "PRFLOW_CACHE_DIR": str(fresh / "cache"),
        "PRFLOW_DATABASE_URL": db,
    }
    process = WorkerProcess(env, tmp_path / "fresh-worker.log")
    await process.start()
    try:
        async with run_worker(temporal_client, temporal_settings, workflows=[TestRunProbe]):
            result = await temporal_client.execute_workflow(
                TestRunProbe.run,
                TestRunProbeInput(
                    run=TestRunInput(workspace=fixed.workspace),
                    task_queue=tools_settings.temporal.task_queue,
                ),
                id="test-run-fresh-worker",
                task_queue=temporal_settings.temporal.task_queue,
            )
    finally:
        await process.stop()

    assert result.sandbox == SandboxKind.bwrap
    assert (result.counts.passed, result.counts.failed) == (4, 0), "the edit was in the tree"
    assert result.outcomes_key is not None
    fixed_test = "tests.test_storage::test_known_broken"
    assert {o.id: o.outcome for o in outcomes_of(db, result.outcomes_key)}[fixed_test] == (
        Outcome.passed
    )
    assert list((fresh / "cache" / "workspaces").glob("*/*/tree/tests/test_storage.py"))
    assert list((fresh / "cache" / "test-envs").glob("*/.complete"))
