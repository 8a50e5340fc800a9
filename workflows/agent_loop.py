"""The one agent tool-use loop every workflow uses.

Each model turn is an ``llm_call`` activity and each tool call is an activity,
so a crash resumes after the last finished turn without paying for it again.
The loop's whole state is an :class:`~prflow.agent.state.AgentState`, so it can
stop between any two turns (for continue-as-new) and carry on from that state.
Before every model call it checks the agent's budget against the call's worst
case; when a cap is reached it waits (if allowed) for an operator to raise it,
else it stops and says why. Tool failures go back to the model as error results.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.agent_messages import compose_message
    from activities.llm import llm_call
    from activities.phase_cuts import record_phase_cut
    from activities.repo_tools import run_repo_tool
    from activities.workspace import workspace_tool
    from prflow.agent.budget import (
        MIN_USEFUL_OUTPUT_TOKENS,
        BudgetRaise,
        LimitKind,
        Verdict,
        check_call,
        fit_call,
        no_room_after,
        raised,
    )
    from prflow.agent.economy import next_elision_point
    from prflow.agent.messages import ComposedMessage, ComposeInput, ToolResultPart
    from prflow.agent.outcome import AgentOutcome, StopReason
    from prflow.agent.state import (
        AgentRequest,
        AgentState,
        RepoToolBackend,
        WorkspaceToolBackend,
    )
    from prflow.llm.messages import LlmCallInput, LlmCallResult, MessageRef, ToolCall
    from prflow.llm.request_identity import run_scope
    from prflow.llm.token_estimate import estimate_prompt_tokens, tokens_for_chars
    from prflow.repo_models import ToolCallInput, ToolCallOutput
    from prflow.run_progress import AgentProgress, PhaseState
    from prflow.store.costs import PhaseCut
    from prflow.tools.read_file import NAME as READ_FILE_TOOL
    from prflow.workspace.models import WorkspaceToolInput, WorkspaceToolOutput
    from workflows.child_reports import ChildReports
    from workflows.routing import llm_queue

CONTINUE_PROMPT = (
    "Your last reply stopped at the output token limit. Continue from where it stopped, "
    "more briefly, and finish by calling the submit tool if one is available."
)
ANSWER_SCOPE_PATCH = "llm-answer-scope-v1"
AGENT_WORKFLOW_TYPE = "agent"
"""The child agent workflow's type name (``workflows.agent_workflow.AGENT_WORKFLOW``)."""
CUT_RECORD_PATCH = "agent-cut-recorded-v1"
"""Patch: an agent stopped by a cap records the cut in the store for ``prflow costs``."""
SIZE_TO_FIT_PATCH = "agent-call-sized-to-fit-v1"
"""Patch: a call that does not fit its caps at full max_tokens is sized down, and the
prefix the previous request cached is priced at the cache-read rate."""
SHARE_PATCH = "agent-told-its-share-v1"
"""Patch: an agent whose spec ``tells_share`` hears the tokens left of its cap after every
turn, and the turn that leaves no room for another is its last: the answer must call the
terminal tool, so what it found so far is submitted instead of lost at the cap."""
GROWTH_PATCH = "agent-share-foresees-growth-v1"
"""Patch: deciding whether the next turn is an agent's last, the turn after it is taken to
grow by as much as the last one did (its tool results): without that, a turn whose tool
results outgrew the output reserve left a forced last call that no longer fit the share,
and the agent was cut (a 12.7k-token investigation share, 60-line windows and searches)."""
TOOL_TIMEOUT = timedelta(minutes=2)
TOOL_HEARTBEAT = timedelta(seconds=30)
TOOL_RETRY = RetryPolicy(maximum_attempts=3, non_retryable_error_types=["UserError"])

_STOP_FOR_LIMIT = {
    LimitKind.iterations: StopReason.iterations,
    LimitKind.wall_clock: StopReason.wall_clock,
    LimitKind.usd: StopReason.budget_usd,
    LimitKind.tokens: StopReason.budget_tokens,
}


class AgentLoop:
    """Runs one conversation to a final answer, a terminal tool call, a limit, or a pause.

    ``run()`` returns None when ``may_pause`` is set and the loop stopped at a
    turn boundary because the SDK suggested continue-as-new or the run reached
    ``turns_per_run``; :attr:`state` then holds everything needed to go on.
    """

    def __init__(
        self,
        state: AgentState,
        *,
        on_turn: Callable[[], Awaitable[None]] | None = None,
        on_wait: Callable[[], Awaitable[None]] | None = None,
        may_pause: bool = False,
    ) -> None:
        self.state = state
        self._on_turn = on_turn
        self._on_wait = on_wait
        self._may_pause = may_pause
        self.waiting_reason: str | None = None
        self.finished: AgentOutcome | None = None
        self._size_to_fit: bool | None = None
        # Workspace tools run one at a time, in the order the model asked for them:
        # each edit builds on the reference the previous one returned.
        self._workspace_lock = asyncio.Lock()

    # ------------------------------------------------------------------ queries

    def progress(self) -> AgentProgress:
        """Where this agent stands, for the host's ``progress`` query."""
        st = self.state
        if self.finished is None:
            state, detail = PhaseState.running, ""
        else:
            done = self.finished.completed
            state = PhaseState.done if done else PhaseState.failed
            detail = self.finished.detail or self.finished.stop.value
        return AgentProgress(
            name=st.spec.name,
            phase=st.spec.phase,
            state=state,
            turns=st.budget.spent.iterations,
            spent=st.budget.spent,
            caps=st.budget.caps,
            waiting_for_budget=self.waiting_reason,
            detail=detail,
            runs=st.runs,
        )

    def raise_caps(self, change: BudgetRaise) -> None:
        """Lift this agent's caps (a raise addressed to its name or phase, or to all)."""
        if self.state.budget.answers_to(change.phase):
            self.state.budget.caps = raised(self.state.budget.caps, change)

    # ------------------------------------------------------------------ the loop

    async def run(self) -> AgentOutcome | None:
        st, spec = self.state, self.state.spec
        self._size_to_fit = workflow.patched(SIZE_TO_FIT_PATCH)
        if st.started_at is None:
            st.started_at = workflow.now()
        if st.next_prompt_tokens == 0:
            st.next_prompt_tokens = estimate_prompt_tokens(
                spec.system_chars, spec.tools_chars, len(spec.tool_names), spec.initial_chars
            )
        if self._tells_share() and st.budget.spent.calls == 0 and not st.last_turn:
            # a first prompt so large that a second call would not fit: answer at once
            st.last_turn = self._no_room_after(st.next_prompt_tokens)
        while True:
            if self._should_pause():
                return None
            check = self._verdict()
            may_wait = spec.plan.raise_wait_seconds > 0 and check.limit != LimitKind.wall_clock
            if not check.allowed and may_wait:
                check = await self._wait_for_raise(check)
            if not check.allowed:
                assert check.limit is not None
                await self._record_cut(check.limit, check.reason)
                return self._finish(_STOP_FOR_LIMIT[check.limit], check.reason)

            last = st.last_turn
            try:
                result = await self._call_model(
                    check.max_tokens or spec.plan.max_tokens,
                    force_tool=spec.terminal_tool if last else None,
                )
            except ActivityError as err:
                return self._finish(StopReason.llm_error, _failure_message(err))

            st.budget.spent.add_turn(result.usage, result.usd)
            st.turns_this_run += 1
            self._append(MessageRef(role="assistant", blob_key=result.assistant_key), result)
            if self._on_turn is not None:
                await self._on_turn()

            terminal = next(
                (
                    call
                    for call in result.tool_calls
                    if call.name == spec.terminal_tool and call.input is not None
                ),
                None,
            )
            if terminal is not None:
                detail = "submitted at its token share" if last else ""
                outcome = self._finish(StopReason.terminal_tool, detail, result.text)
                outcome.terminal_input = terminal.input
                return outcome
            if last:
                return self._finish(StopReason.budget_tokens, "token share spent")

            tells = self._tells_share()
            parts: list[ToolResultPart] = []
            if result.tool_calls:
                parts = list(
                    await asyncio.gather(*(self._answer_tool(c) for c in result.tool_calls))
                )
                follow_up = await self._compose(
                    tool_results=parts,
                    cap=spec.economy.max_tool_result_chars_per_turn,
                    text=self._share_note(last=False) if tells else None,
                )
            elif result.stop_reason == "max_tokens":
                follow_up = await self._compose(text=CONTINUE_PROMPT)
            else:
                return self._finish(StopReason.final_answer, "", result.text)
            next_tokens = (
                result.usage.prompt_tokens
                + result.usage.output_tokens
                + tokens_for_chars(follow_up.chars)
            )
            growth = max(next_tokens - result.usage.prompt_tokens, 0)
            if tells and parts and self._no_room_after(next_tokens, growth):
                st.last_turn = True
                follow_up = await self._compose(
                    tool_results=parts,
                    cap=spec.economy.max_tool_result_chars_per_turn,
                    text=self._share_note(last=True),
                )
                next_tokens = (
                    result.usage.prompt_tokens
                    + result.usage.output_tokens
                    + tokens_for_chars(follow_up.chars)
                )
            self._append(MessageRef(role="user", blob_key=follow_up.key), follow_up)
            st.next_prompt_tokens = next_tokens
            elided_from = st.elide_before
            st.elide_before = next_elision_point(
                st.elide_before, st.transcript_len, st.next_prompt_tokens, spec.economy
            )
            # The request just answered marked its end: the next one reads that prefix from
            # the cache unless older tool results were just elided (the prefix changed).
            st.cached_prefix_tokens = (
                result.usage.prompt_tokens if st.elide_before == elided_from else 0
            )

    def next_run_state(self) -> AgentState:
        """The state a continue-as-new run starts from."""
        return self.state.model_copy(
            update={"runs": self.state.runs + 1, "turns_this_run": 0}, deep=True
        )

    # ------------------------------------------------------------------ steps

    def _tells_share(self) -> bool:
        """Whether this agent hears its token share (only such agents record the patch)."""
        spec = self.state.spec
        return bool(spec.tells_share and spec.terminal_tool and workflow.patched(SHARE_PATCH))

    def _share_note(self, *, last: bool) -> str:
        st = self.state
        caps, spent = st.budget.caps, st.budget.spent
        left = max(caps.tokens - spent.tokens, 0)
        terminal = st.spec.terminal_tool
        if last:
            return (
                f"[Token share: {left:,} of your {caps.tokens:,} tokens left, enough for this "
                f"turn only. Call {terminal} now with what you have verified so far; no other "
                "tool will run.]"
            )
        return (
            f"[Token share: {left:,} of your {caps.tokens:,} tokens left; every turn re-sends "
            f"the whole conversation. Conclude with {terminal} before it runs out: when one "
            "more turn would not fit, your next answer must be that call.]"
        )

    def _no_room_after(self, next_tokens: int, growth: int = 0) -> bool:
        """Whether, after a call of ``next_tokens`` prompt tokens, another one (as large, and
        grown by ``growth`` more, as the last turn grew the prompt) would no longer fit the
        token cap: that call must then be the last."""
        st = self.state
        output = min(MIN_USEFUL_OUTPUT_TOKENS, st.spec.plan.max_tokens)
        left = st.budget.caps.tokens - st.budget.spent.tokens
        if growth and workflow.patched(GROWTH_PATCH):
            return no_room_after(left, next_tokens, output, growth)
        return no_room_after(left, next_tokens, output)

    def _should_pause(self) -> bool:
        if not self._may_pause or self.state.turns_this_run == 0:
            return False
        if self.state.turns_this_run >= self.state.spec.turns_per_run:
            return True
        return workflow.info().is_continue_as_new_suggested()

    def _verdict(self) -> Verdict:
        st = self.state
        assert st.started_at is not None
        if self._size_to_fit:
            return fit_call(
                st.budget,
                price=st.spec.plan.price,
                estimated_input_tokens=st.next_prompt_tokens,
                max_tokens=st.spec.plan.max_tokens,
                elapsed_seconds=(workflow.now() - st.started_at).total_seconds(),
                cached_prefix_tokens=st.cached_prefix_tokens,
            )
        return check_call(
            st.budget,
            price=st.spec.plan.price,
            estimated_input_tokens=st.next_prompt_tokens,
            max_tokens=st.spec.plan.max_tokens,
            elapsed_seconds=(workflow.now() - st.started_at).total_seconds(),
        )

    async def _wait_for_raise(self, check: Verdict) -> Verdict:
        """Park the loop until a raise lifts the cap or the wait runs out."""
        self.waiting_reason = check.reason
        if self._on_wait is not None:
            await self._on_wait()
        try:
            await workflow.wait_condition(
                lambda: self._verdict().allowed,
                timeout=timedelta(seconds=self.state.spec.plan.raise_wait_seconds),
            )
        except TimeoutError:
            pass
        finally:
            self.waiting_reason = None
            self.state.cached_prefix_tokens = 0  # the cache may have expired meanwhile
        return self._verdict()

    async def _call_model(self, max_tokens: int, force_tool: str | None = None) -> LlmCallResult:
        st, spec = self.state, self.state.spec
        plan = spec.plan
        timeout = timedelta(seconds=plan.request_timeout_seconds * 1.2 + 5)
        return await workflow.execute_activity(
            llm_call,
            LlmCallInput(
                workflow_kind=spec.workflow_kind,
                phase=spec.phase,
                model=plan.model,
                max_tokens=max_tokens,
                price=plan.price,
                system_key=spec.system_key,
                tools_key=spec.tools_key,
                messages=[] if st.transcript_key else list(st.transcript),
                transcript_key=st.transcript_key,
                elide_before=st.elide_before,
                repo=spec.repo,
                pr_number=spec.pr_number,
                answer_scope=_run_answer_scope(),
                force_tool=force_tool,
            ),
            task_queue=llm_queue(plan.task_queue),
            start_to_close_timeout=timeout,
            heartbeat_timeout=timedelta(seconds=plan.heartbeat_timeout_seconds),
            schedule_to_close_timeout=timeout * plan.max_attempts + timedelta(minutes=5),
            retry_policy=RetryPolicy(
                initial_interval=timedelta(seconds=2),
                backoff_coefficient=2.0,
                maximum_interval=timedelta(seconds=60),
                maximum_attempts=plan.max_attempts,
                non_retryable_error_types=["UserError"],
            ),
            summary=f"{spec.name}: model turn {st.budget.spent.iterations + 1} ({plan.model})",
        )

    def _append(self, message: MessageRef, stored: LlmCallResult | ComposedMessage) -> None:
        """Follow the transcript: by key once the activities keep one, else as a list."""
        st = self.state
        if stored.transcript_key is not None:
            st.transcript_key, st.transcript_len = stored.transcript_key, stored.transcript_len
            st.transcript = []
        else:
            st.transcript.append(message)
            st.transcript_len = len(st.transcript)

    async def _answer_tool(self, call: ToolCall) -> ToolResultPart:
        spec = self.state.spec
        if call.input_error is not None or call.input is None:
            return ToolResultPart(
                tool_use_id=call.id,
                text=f"Tool input was not a JSON object ({call.input_error}); send valid JSON.",
                is_error=True,
            )
        if call.name == spec.terminal_tool:
            return ToolResultPart(tool_use_id=call.id, text="Accepted.", is_error=False)
        if call.name not in spec.tool_names:
            return ToolResultPart(
                tool_use_id=call.id, text=f"Unknown tool {call.name!r}.", is_error=True
            )
        if call.name in spec.parent_tools and spec.parent_workflow_id is not None:
            return await self._ask_parent(call, spec.parent_workflow_id)
        return await self._run_backend_tool(call)

    async def _ask_parent(self, call: ToolCall, parent_id: str) -> ToolResultPart:
        """A parent tool is the parent's to act on: a signal to it, answered at once."""
        handle = workflow.get_external_workflow_handle(parent_id)
        await handle.signal(
            ChildReports.agent_request,
            AgentRequest(agent=self.state.spec.name, tool=call.name, input=call.input or {}),
        )
        return ToolResultPart(
            tool_use_id=call.id,
            text="Requested: it starts now, beside you. Carry on with your own work.",
            is_error=False,
        )

    async def _run_backend_tool(self, call: ToolCall) -> ToolResultPart:
        """Run ``call`` on the agent's repository tools (an activity)."""
        backend = self.state.spec.tool_backend
        if backend is None:
            return ToolResultPart(
                tool_use_id=call.id, text="This agent has no tools to run.", is_error=True
            )
        if isinstance(backend, WorkspaceToolBackend):
            return await self._run_workspace_tool(backend, call)
        refusal = self._beyond_focus(backend, call)
        if refusal is not None:
            return ToolResultPart(tool_use_id=call.id, text=refusal, is_error=True)
        output: ToolCallOutput = await workflow.execute_activity(
            run_repo_tool,
            ToolCallInput(range=backend.range, tool=call.name, arguments=call.input or {}),
            task_queue=backend.task_queue,
            start_to_close_timeout=TOOL_TIMEOUT,
            heartbeat_timeout=TOOL_HEARTBEAT,
            retry_policy=TOOL_RETRY,
            summary=f"{self.state.spec.name}: tool {call.name} {brief(call.input)}",
        )
        return tool_result_part(call, output)

    async def _run_workspace_tool(
        self, backend: WorkspaceToolBackend, call: ToolCall
    ) -> ToolResultPart:
        """Read or edit the workspace; an applied edit moves the agent's reference on."""
        async with self._workspace_lock:
            st = self.state
            output: WorkspaceToolOutput = await workflow.execute_activity(
                workspace_tool,
                WorkspaceToolInput(
                    workspace=st.workspace or backend.workspace,
                    tool=call.name,
                    arguments=call.input or {},
                    editable=backend.editable,
                    actor=st.spec.name,
                ),
                task_queue=backend.task_queue,
                start_to_close_timeout=TOOL_TIMEOUT,
                heartbeat_timeout=TOOL_HEARTBEAT,
                retry_policy=TOOL_RETRY,
                summary=f"{st.spec.name}: tool {call.name} {brief(call.input)}",
            )
            if output.workspace is not None:
                st.workspace = output.workspace
        return ToolResultPart(
            tool_use_id=call.id, content_key=output.content_key, is_error=not output.ok
        )

    def _beyond_focus(self, backend: RepoToolBackend, call: ToolCall) -> str | None:
        """Why a read outside the agent's focus is refused (its limit is spent), else None.

        Opening a file outside the focus is one hop of reference following; reopening
        a file already opened is free.
        """
        limit = backend.max_reads_outside_focus
        if limit is None or call.name != READ_FILE_TOOL:
            return None
        path = str((call.input or {}).get("path", "")).strip().removeprefix("./")
        opened = self.state.reads_outside_focus
        if path in backend.focus_paths or path in opened:
            return None
        if len(opened) >= limit:
            return (
                f"Reference-following limit reached: you already opened {limit} files outside "
                f"your target and context files ({', '.join(opened)}). Conclude with what you "
                "have, or ask for an investigation."
            )
        opened.append(path)
        return None

    async def _compose(
        self,
        *,
        text: str | None = None,
        tool_results: list[ToolResultPart] | None = None,
        cap: int | None = None,
    ) -> ComposedMessage:
        st = self.state
        return await workflow.execute_local_activity(
            compose_message,
            ComposeInput(
                text=text,
                tool_results=tool_results or [],
                transcript_key=st.transcript_key,
                base_messages=[] if st.transcript_key else list(st.transcript),
                max_tool_result_chars=cap,
            ),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=5),
        )

    async def _record_cut(self, limit: LimitKind, reason: str) -> None:
        """Say in the store which cap stopped this agent (histories before the patch do not)."""
        if not workflow.patched(CUT_RECORD_PATCH):
            return
        spec = self.state.spec
        await workflow.execute_local_activity(
            record_phase_cut,
            PhaseCut(
                workflow_id=workflow.info().workflow_id,
                workflow_kind=spec.workflow_kind,
                phase=spec.phase,
                agent=spec.name,
                model=spec.plan.model,
                cap=limit.value,
                reason=reason,
                repo=spec.repo,
                pr_number=spec.pr_number,
            ),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=5),
        )

    def _finish(self, stop: StopReason, detail: str, text: str = "") -> AgentOutcome:
        st = self.state
        self.finished = AgentOutcome(
            name=st.spec.name,
            stop=stop,
            detail=detail,
            final_text=text,
            iterations=st.budget.spent.iterations,
            transcript=list(st.transcript),
            transcript_key=st.transcript_key,
            spent=st.budget.spent,
            workspace=st.workspace,
        )
        return self.finished


def _run_answer_scope() -> str | None:
    """The scope every agent of this run shares for kept answers (see ``llm_call``).

    The run is the kind's workflow execution (impact, review, ...): an inline
    agent's own, a child agent's parent (the parent stays the same across the
    child's continue-as-new runs). Not the root: a run the org queue started is
    a child of the queue, and two runs must never share answers. Histories
    recorded before the scope existed keep sending without one.
    """
    if not workflow.patched(ANSWER_SCOPE_PATCH):
        return None
    info = workflow.info()
    if info.workflow_type == AGENT_WORKFLOW_TYPE and info.parent is not None:
        return run_scope(info.parent.workflow_id, info.parent.run_id)
    return run_scope(info.workflow_id, info.run_id)


def tool_result_part(call: ToolCall, output: ToolCallOutput) -> ToolResultPart:
    """The model's view of a repository tool's output."""
    return ToolResultPart(
        tool_use_id=call.id,
        content_key=output.content_key if output.ok else None,
        text=None if output.ok else output.error,
        is_error=not output.ok,
    )


def brief(arguments: dict[str, object] | None) -> str:
    """Tool arguments shortened for an activity summary in the Web UI."""
    if not arguments:
        return ""
    text = ", ".join(f"{k}={v}" for k, v in sorted(arguments.items()))
    return text if len(text) <= 80 else text[:77] + "..."


def _failure_message(err: ActivityError) -> str:
    cause = err.cause
    if isinstance(cause, ApplicationError):
        return f"{cause.type or 'error'}: {cause.message}"
    return str(cause or err)
