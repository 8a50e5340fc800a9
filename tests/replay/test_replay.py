"""Histories replay with the production data converter, and no payload exceeds 256 KiB.

Two sources: histories committed under ``histories/<release>/`` (recorded by
earlier releases of each workflow kind and kept, so a change to workflow code
that is not behind ``workflow.patched`` fails here), and every workflow the
current test session ran on its dev server (checked by
:mod:`tests.replay.session_histories` when the server fixture tears down, so
each pytest-xdist worker checks the server it ran on).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory

from prflow.registry import KINDS
from tests.replay.session_histories import HISTORY_DIR, replayer, workflow_name
from worker.registry import workflows


def committed_histories() -> list[Path]:
    return sorted(HISTORY_DIR.glob("*/*.json"))


def _workflow_type(history: dict[str, object]) -> str:
    first = history["events"][0]  # type: ignore[index]
    return str(first["workflowExecutionStartedEventAttributes"]["workflowType"]["name"])


def test_every_workflow_kind_and_platform_workflow_has_a_committed_history() -> None:
    recorded = {_workflow_type(json.loads(p.read_text())) for p in committed_histories()}
    expected = {kind.name for kind in KINDS} | {workflow_name(w) for w in workflows()}
    assert expected <= recorded, f"no committed history for {sorted(expected - recorded)}"


@pytest.mark.parametrize("path", committed_histories(), ids=lambda p: f"{p.parent.name}/{p.stem}")
async def test_committed_history_replays(path: Path) -> None:
    history = WorkflowHistory.from_json(path.stem, _read(path))
    await replayer().replay_workflow(history)


def _read(path: Path) -> str:
    return path.read_text()
