"""An agent that edits through the workspace tools, on the real dev server and the real SDK.

The scripted model sends a refused edit, an edit and a read in one turn, a
create after a continue-as-new, and an edit outside its scope; the workspace
reference the agent carries must follow every applied edit across runs. A
second test serves the tools from a ``prflow worker`` process whose data and
cache directories are empty: it rebuilds what it needs from the base commit and
the stored state alone.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from activities.agent_messages import prepare_prompt
from activities.workspace import edit_workspace, materialise, open_workspace
from activities.workspace_git import load_state
from prflow.agent.messages import AgentPrompt
from prflow.agent.state import AgentSpec, WorkspaceToolBackend, spec_from_prompt
from prflow.config import Settings, cached_settings
from prflow.store.blobs import get_text
from prflow.workspace.edits import ReplaceEdit
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput, WorkspaceRef
from prflow.workspace.tools import WORKSPACE_TOOL_SPECS
from tests.agent.probe_workflows import ProbeRequest, ProbeWorkflow
from tests.support.agent_specs import probe_plan
from tests.support.fixtures_temporal import (
    WorkerProcess,
    child_environment,
    isolated_settings,
    run_worker,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn
from tests.support.workspace_repo import build_workspace_repo

pytestmark = pytest.mark.temporal

ASYNC_READ = {
    "path": "shop/storage.py",
    "edits": [
        {
            "old_string": "def read_item(path: Path) -> str:",
            "new_string": "async def read_item(path: Path) -> str:",
            "reason": "reads become async",
        }
    ],
}


def db() -> str:
    return cached_settings().resolved_database_url()


def workspace_spec(
    settings: Settings, ref: WorkspaceRef, *, turns_per_run: int = 100, queue: str | None = None
) -> AgentSpec:
    prompt = prepare_prompt(
        db(),
        AgentPrompt(
            system="You refactor code with tools.",
            tools=list(WORKSPACE_TOOL_SPECS),
            first_message="Make read_item async.",
        ),
    )
    return spec_from_prompt(
        prompt,
        name="executor",
        workflow_kind="probe",
        phase="probe_phase",
        plan=probe_plan(settings),
        tool_backend=WorkspaceToolBackend(workspace=ref, editable=["shop/"], task_queue=queue),
        turns_per_run=turns_per_run,
    )


def tool_results(body: dict[str, Any]) -> list[str]:
    last = body["messages"][-1]
    return [str(b["content"]) for b in last["content"] if b.get("type") == "tool_result"]


async def test_an_agent_edits_the_workspace_and_carries_it_across_continue_as_new(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    tmp_path: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="agent-edits"))
    scripted_anthropic.script(
        [
            Turn(
                tool_uses=[
                    ToolUse(
                        "edit_file",
                        {
                            "path": "shop/storage.py",
                            "edits": [{"old_string": "return", "new_string": "x", "reason": "r"}],
                        },
                    )
                ]
            ),
            Turn(
                tool_uses=[
                    ToolUse("edit_file", ASYNC_READ),
                    ToolUse("read_file", {"path": "shop/storage.py", "limit_lines": 5}),
                ]
            ),
            Turn(
                tool_uses=[
                    ToolUse(
                        "create_file",
                        {"path": "shop/aio.py", "content": "ASYNC = True\n", "reason": "flag"},
                    )
                ]
            ),
            Turn(
                tool_uses=[
                    ToolUse("delete_file", {"path": "README.md", "reason": "out of scope"}),
                    ToolUse("search_code", {"pattern": "ASYNC|async def"}),
                ]
            ),
            Turn(text="Done."),
        ]
    )
    spec = workspace_spec(temporal_settings, ref, turns_per_run=2)
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        result = await temporal_client.execute_workflow(
            ProbeWorkflow.run,
            ProbeRequest(specs=[spec]),
            id="probe-workspace-agent",
            task_queue=temporal_settings.temporal.task_queue,
        )

    [outcome] = result.outcomes
    assert outcome.completed and outcome.final_text == "Done."
    assert outcome.workspace is not None and outcome.workspace.revision == 2
    requests = scripted_anthropic.requests
    [refused] = tool_results(requests[1].body)
    assert "Text appears 2 times in file (at lines 5, 13)" in refused
    applied, read = tool_results(requests[2].body)
    assert "Applied 1 edit." in applied
    assert "     4\tasync def read_item(path: Path) -> str:" in read, "the read saw the edit"
    outside, found = tool_results(requests[4].body)
    assert "You may edit only: shop/." in outside
    assert found.splitlines() == [
        "shop/aio.py:1:ASYNC = True",
        "shop/storage.py:4:async def read_item(path: Path) -> str:",
    ]
    runs = [
        e
        async for e in temporal_client.list_workflows(
            'WorkflowId = "probe-workspace-agent/agent:executor"'
        )
    ]
    assert len(runs) == 3, "five turns at two per run take three runs"
    tree = materialise(db(), outcome.workspace)
    assert (tree / "shop/aio.py").read_text() == "ASYNC = True\n"
    assert (tree / "README.md").is_file()
    assert "async def read_item" not in (repo / "shop/storage.py").read_text()


async def test_a_worker_with_empty_data_and_cache_dirs_serves_the_workspace(
    temporal_client: Client,
    temporal_address: str,
    temporal_settings: Settings,
    prflow_home: Path,
    tmp_path: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    opened = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="fresh-worker"))
    first = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=opened,
            edits=[
                ReplaceEdit(
                    path="shop/cart.py",
                    old_string="total(prices)",
                    new_string="total(prices) + 0",
                    reason="made on the first machine",
                )
            ],
        ),
    )
    assert first.ok
    tools_settings = isolated_settings(temporal_address, temporal_settings)
    fresh = tmp_path / "fresh-machine"
    env = child_environment(tools_settings) | {
        "PRFLOW_DATA_DIR": str(fresh / "data"),
        "PRFLOW_CACHE_DIR": str(fresh / "cache"),
        "PRFLOW_DATABASE_URL": db(),
    }
    process = WorkerProcess(env, tmp_path / "fresh-worker.log")
    await process.start()
    try:
        scripted_anthropic.script(
            [
                Turn(tool_uses=[ToolUse("read_file", {"path": "shop/cart.py"})]),
                Turn(tool_uses=[ToolUse("edit_file", ASYNC_READ)]),
                Turn(text="Done."),
            ]
        )
        spec = workspace_spec(
            temporal_settings, first.workspace, queue=tools_settings.temporal.task_queue
        )
        async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
            result = await temporal_client.execute_workflow(
                ProbeWorkflow.run,
                ProbeRequest(specs=[spec], mode="inline"),
                id="probe-workspace-fresh-worker",
                task_queue=temporal_settings.temporal.task_queue,
            )
    finally:
        await process.stop()

    [read] = tool_results(scripted_anthropic.requests[1].body)
    assert "return total(prices) + 0" in read
    [outcome] = result.outcomes
    assert outcome.workspace is not None and outcome.workspace.revision == 2
    state = load_state(db(), outcome.workspace)
    assert "async def read_item" in get_text(db(), str(state.files["shop/storage.py"]))
    assert "total(prices) + 0" in get_text(db(), str(state.files["shop/cart.py"]))
    assert (fresh / "cache" / "snapshots").is_dir(), "the fresh worker built its own snapshot"


async def test_a_run_moved_to_another_worker_resumes_on_its_latest_workspace(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    tmp_path: Path,
    scripted_anthropic: ScriptedAnthropic,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first worker edits, then stops mid-turn; a worker with an empty cache replays the
    agent's history and its next read sees the edit (the reference came back from history)."""
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="moved-agent"))
    gate = threading.Event()
    scripted_anthropic.script(
        [
            Turn(tool_uses=[ToolUse("edit_file", ASYNC_READ)]),
            Turn(
                tool_uses=[
                    ToolUse("read_file", {"path": "shop/storage.py"}),
                    ToolUse("read_file", {"path": "shop/cart.py"}),
                ],
                release=gate,
            ),
            Turn(text="Done."),
        ]
    )
    spec = workspace_spec(temporal_settings, ref)
    async with run_worker(
        temporal_client,
        temporal_settings,
        workflows=[ProbeWorkflow],
        graceful_shutdown=timedelta(0),
    ):
        handle = await temporal_client.start_workflow(
            ProbeWorkflow.run,
            ProbeRequest(specs=[spec], mode="inline"),
            id="probe-workspace-moved",
            task_queue=temporal_settings.temporal.task_queue,
        )
        await asyncio.to_thread(scripted_anthropic.wait_for_requests, 2, 60)
    # The first worker is gone with its turn in flight; the second starts with no cache.
    monkeypatch.setenv("PRFLOW_CACHE_DIR", str(tmp_path / "second-worker-cache"))
    gate.set()
    async with run_worker(temporal_client, temporal_settings, workflows=[ProbeWorkflow]):
        result = await handle.result()

    [outcome] = result.outcomes
    assert outcome.completed and outcome.workspace is not None
    assert outcome.workspace.revision == 1
    edited, untouched = next(
        tool_results(request.body) for request in scripted_anthropic.requests if request.turn == 2
    )
    assert "     4\tasync def read_item(path: Path) -> str:" in edited
    assert "def checkout(prices: list[int]) -> int:" in untouched
    assert (tmp_path / "second-worker-cache" / "snapshots").is_dir(), "read on the new worker"
