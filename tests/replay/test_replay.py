"""Histories replay with the production data converter, and no payload exceeds 256 KiB.

Two sources: histories committed under ``histories/`` (recorded from earlier
versions of the workflows, so incompatible workflow changes are caught), and
every workflow the current test session ran on its dev server (checked last).
Set ``PRFLOW_RECORD_HISTORIES=1`` to refresh the committed ones from this run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from tests.replay.history_payloads import PAYLOAD_LIMIT_BYTES, largest_payload
from worker.registry import workflows

HISTORY_DIR = Path(__file__).parent / "histories"
RECORD_ENV = "PRFLOW_RECORD_HISTORIES"
RECORDED_IDS = {
    "impact-static-1": "impact-static",
    "impact-agent-1": "impact-agent-tools",
    "impact-budget-1": "impact-budget-raised",
    "impact-crash-1": "impact-worker-crash",
    "impact-fault-json": "impact-malformed-tool-input",
    "pr-checks-wait-1": "pr-checks-wait",
    "pr-checks-crash-1": "pr-checks-worker-restart",
}


def _replayer() -> Replayer:
    return Replayer(workflows=workflows(), data_converter=pydantic_data_converter)


def committed_histories() -> list[Path]:
    return sorted(HISTORY_DIR.glob("*.json"))


def test_every_workflow_kind_has_a_committed_history() -> None:
    kinds = {
        json.loads(p.read_text())["events"][0]["workflowExecutionStartedEventAttributes"][
            "workflowType"
        ]["name"]
        for p in committed_histories()
    }
    assert {w.__temporal_workflow_definition.name for w in workflows()} <= kinds  # type: ignore[attr-defined]


def _workflow_type(history: dict[str, object]) -> str:
    first = history["events"][0]  # type: ignore[index]
    return str(first["workflowExecutionStartedEventAttributes"]["workflowType"]["name"])


@pytest.mark.parametrize("path", committed_histories(), ids=lambda p: p.stem)
async def test_committed_history_replays(path: Path) -> None:
    history = WorkflowHistory.from_json(path.stem, _read(path))
    await _replayer().replay_workflow(history)


def _read(path: Path) -> str:
    return path.read_text()


@pytest.mark.suite_end
async def test_session_histories_replay_and_stay_under_payload_limit(
    temporal_client: Client,
) -> None:
    known = {w.__temporal_workflow_definition.name for w in workflows()}  # type: ignore[attr-defined]
    checked = 0
    largest = ("", 0)
    async for execution in temporal_client.list_workflows():
        handle = temporal_client.get_workflow_handle(execution.id, run_id=execution.run_id)
        history = await handle.fetch_history()
        where, size = largest_payload(history.to_json_dict())
        assert size <= PAYLOAD_LIMIT_BYTES, f"{execution.id}: {size} bytes at {where}"
        largest = max(largest, (where, size), key=lambda item: item[1])
        if execution.workflow_type in known:
            await _replayer().replay_workflow(history)
            checked += 1
            _maybe_record(execution.id, history)
    assert checked > 0, "the session ran no prflow workflow to replay"
    print(f"replayed {checked} histories; largest payload {largest[1]} bytes ({largest[0]})")


def _maybe_record(workflow_id: str, history: WorkflowHistory) -> None:
    name = RECORDED_IDS.get(workflow_id)
    if name and os.environ.get(RECORD_ENV):
        HISTORY_DIR.mkdir(exist_ok=True)
        (HISTORY_DIR / f"{name}.json").write_text(json.dumps(history.to_json_dict(), indent=1))
