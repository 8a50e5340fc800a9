"""The ``queue_gate`` workflow: one per organisation, a semaphore of job slots.

PR workflows ask through an activity (signal-with-start, so the first ask
starts the gate) and hear back through their ``slot_granted`` signal; they
``release`` when idle or closed. Turns go round the repositories
(:class:`prflow.queue.gate.GateState`). A holder that vanished without
releasing loses its slot when its lease runs out. The gate ends after an
idle hour and continues-as-new when its history grows.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.queue.gate import SLOT_GRANTED, GateState, SlotRequest
    from prflow.queue.kind import GATE_WORKFLOW

IDLE_EXIT = timedelta(hours=1)
LEASE_CHECK = timedelta(minutes=10)
HISTORY_LIMIT = 5_000


@workflow.defn(name=GATE_WORKFLOW)
class OrgGateWorkflow:
    @workflow.init
    def __init__(self, state: GateState) -> None:
        self.state = state
        self._changed = False

    @workflow.signal
    def acquire(self, request: SlotRequest) -> None:
        self.state.request(request)
        self._changed = True

    @workflow.signal
    def release(self, holder: str) -> None:
        self.state.release(holder)
        self._changed = True

    @workflow.query
    def gate(self) -> GateState:
        return self.state

    @workflow.run
    async def run(self, state: GateState) -> None:
        state = self.state
        while True:
            timeout = IDLE_EXIT if state.idle else LEASE_CHECK
            try:
                await workflow.wait_condition(lambda: self._changed, timeout=timeout)
            except TimeoutError:
                if state.idle:
                    break
            self._changed = False
            state.expire(workflow.now())
            for holder in state.grant(workflow.now()):
                await self._tell(holder)
            if self._history_is_long():
                await workflow.wait_condition(workflow.all_handlers_finished)
                state.forget_idle_repos()
                workflow.continue_as_new(state)
        await workflow.wait_condition(workflow.all_handlers_finished)

    async def _tell(self, holder: str) -> None:
        try:
            await workflow.get_external_workflow_handle(holder).signal(SLOT_GRANTED)
        except Exception:  # the holder ended meanwhile: its slot goes to the next waiter
            self.state.release(holder)
            self._changed = True

    def _history_is_long(self) -> bool:
        info = workflow.info()
        return (
            info.is_continue_as_new_suggested() or info.get_current_history_length() > HISTORY_LIMIT
        )
