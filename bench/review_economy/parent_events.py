"""Events a review's history records because of its child agents' messages.

After a ``prflow review`` ends, its embedded server's history file is opened with a dev
server of its own, and the review's history is read: each signal a child sent
(``agent_progress``, ``agent_request``) is one event, and a workflow task scheduled for
nothing but such signals adds its three (scheduled, started, completed). Child model
turns are counted in the children's own histories (``llm_call`` activities scheduled).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from bench.impact.measure import free_port
from worker.devserver import DevServer

CHILD_SIGNALS = frozenset({"agent_progress", "agent_request"})
WORKFLOW_TASK_EVENTS = 3


@dataclass(frozen=True)
class ParentEvents:
    signals: int
    signal_events: int
    """Signal events plus the workflow-task events scheduled only for them."""
    child_turns: int
    children: int

    @property
    def per_child_turn(self) -> float:
        return self.signal_events / self.child_turns if self.child_turns else 0.0


def _count(history_events: list[object]) -> tuple[int, int]:
    """(child signals, events of workflow tasks scheduled for nothing but child signals)."""
    signals = extra = 0
    since_task: list[bool] = []  # since the last completed workflow task: a child signal?
    for event in history_events:
        kind = event.event_type  # type: ignore[attr-defined]
        if kind == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
            attributes = event.workflow_execution_signaled_event_attributes  # type: ignore[attr-defined]
            child = attributes.signal_name in CHILD_SIGNALS
            signals += child
            since_task.append(child)
        elif kind == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
            if since_task and all(since_task):
                extra += WORKFLOW_TASK_EVENTS
            since_task = []
        elif kind == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            since_task = []
        elif kind != EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            since_task.append(False)
    return signals, extra


async def _read(db_path: Path) -> ParentEvents:
    server = DevServer(port=free_port(), ui_port=None, db_path=db_path)
    await server.start()
    try:
        client = await Client.connect(server.address)
        signals = extra = turns = children = 0
        async for execution in client.list_workflows():
            history = await client.get_workflow_handle(
                execution.id, run_id=execution.run_id
            ).fetch_history()
            if execution.workflow_type == "review":
                signals, extra = _count(list(history.events))
            elif execution.workflow_type == "agent":
                children += 1
                turns += sum(
                    1
                    for event in history.events
                    if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                    and event.activity_task_scheduled_event_attributes.activity_type.name
                    == "llm_call"
                )
        return ParentEvents(signals, signals + extra, turns, children)
    finally:
        await server.stop()


def parent_events(state: Path) -> ParentEvents:
    """Read the history a ``prflow`` command under ``state`` left (its server stopped)."""
    return asyncio.run(_read(state / "data" / "temporal.db"))
