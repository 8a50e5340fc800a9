"""Every workflow a test session ran replays, and none carried a payload over 256 KiB.

Run by the session's dev-server fixture just before the server stops, so it sees
every history of the session (of this pytest-xdist worker, which owns its own
server). Set ``PRFLOW_RECORD_HISTORIES=1`` to record the runs named in
``RECORDED_IDS`` under the current release's folder; commit them with the release.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from prflow import __version__
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
    "probe-agent-child": "probe-agent-child",
    "probe-agent-child/agent:probe": "agent-child-run",
    "probe-workspace-agent/agent:executor": "agent-workspace-edits",
    "blob-read-replay": "blob-read",
    "pr-checks-wait-1": "pr-checks-wait",
    "pr-checks-crash-1": "pr-checks-worker-restart",
    "queue:octo-replay/shop#1": "queue-open-push-close",
    "queue-gate:prflow-queue-replay:octo-replay": "queue-gate",
    "queue-poll-replay": "queue-poll",
    "review-static": "review-static",  # runs with child agents replay under their own id
    "review-agents": "review-agents",
    "review-agents/agent:reviewers:d1-cart-api-compatibility": "review-reviewer-child",
    "review-worker-crash": "review-worker-crash",
    "review-incremental-post": "review-incremental-post",
    "docsync-static": "docsync-static",
    "docsync-agents": "docsync-agents",
    "docsync-agents/agent:docsync:docs/guide.rst": "docsync-doc-agent-child",
    "docsync-worker-crash": "docsync-worker-crash",
    "refactor-full": "refactor-full",
    "refactor-full/agent:task:callers:1": "refactor-task",
    "refactor-crash": "refactor-crash",
    "conversation:octo-conversation-replay/shop#3": "conversation-resolve-merge",
    "conversation:octo-commands-ask/shop#3": "conversation-commands-ask",
    "conversation:octo-commands-fix/shop#3": "conversation-commands-fix",
}


def replayer() -> Replayer:
    """A replayer with every prflow workflow and the production data converter."""
    return Replayer(workflows=workflows(), data_converter=pydantic_data_converter)


def workflow_name(workflow_class: type) -> str:
    return str(workflow_class.__temporal_workflow_definition.name)  # type: ignore[attr-defined]


async def check_session_histories(client: Client) -> int:
    """Replay every prflow history on ``client``'s server; return how many replayed.

    One replayer replays them all (building one per history cost most of a minute per
    session). Raises AssertionError naming the run whose payload is too large; replay
    errors propagate as the replayer raises them.
    """
    known = {workflow_name(w) for w in workflows()}
    replayable: list[WorkflowHistory] = []
    largest = ("", 0)
    async for execution in client.list_workflows():
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        history = await handle.fetch_history()
        where, size = largest_payload(history.to_json_dict())
        assert size <= PAYLOAD_LIMIT_BYTES, f"{execution.id}: {size} bytes at {where}"
        largest = max(largest, (where, size), key=lambda item: item[1])
        if execution.workflow_type in known and not _input_was_undecodable(history):
            replayable.append(history)
    await replayer().replay_workflows(_each(replayable), raise_on_replay_failure=True)
    for history in replayable:
        _maybe_record(history.workflow_id, history)
    print(
        f"replayed {len(replayable)} session histories; "
        f"largest payload {largest[1]} bytes ({largest[0]})"
    )
    return len(replayable)


async def _each(histories: list[WorkflowHistory]) -> AsyncIterator[WorkflowHistory]:
    for history in histories:
        yield history


def _input_was_undecodable(history: WorkflowHistory) -> bool:
    """A run failed at its first task because its input did not decode (a test starts one on
    purpose; the worker fails such a run at once) ran no workflow code: nothing to replay."""
    last = history.events[-1] if history.events else None
    if last is None or not last.HasField("workflow_execution_failed_event_attributes"):
        return False
    failure = last.workflow_execution_failed_event_attributes.failure
    first_task_only = len(history.events) <= 5  # started, task scheduled/started/completed, failed
    return first_task_only and failure.application_failure_info.type == "ValidationError"


def _maybe_record(workflow_id: str, history: WorkflowHistory) -> None:
    name = RECORDED_IDS.get(workflow_id)
    if name and os.environ.get(RECORD_ENV):
        folder = HISTORY_DIR / __version__
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps(history.to_json_dict(), indent=1))
