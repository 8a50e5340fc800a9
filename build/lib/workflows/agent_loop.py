"""The one agent tool-use loop every workflow uses.

Each model turn is an ``llm_call`` activity and each tool call is an activity
chosen by the caller, so a crash resumes after the last finished turn without
paying for it again. Before every model call the loop checks the phase budget
against the call's worst case; when a cap is reached it waits (if allowed) for
an operator to raise it through the workflow's update, else it stops and says
why. Tool failures go back to the model as error results.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.agent_messages import (
        ComposedMessage,
        ComposeInput,
        ToolResultPart,
        compose_message,
    )
    from prflow.agent_outcome import AgentOutcome, StopReason
    from prflow.budget import LimitKind, PhaseBudget, Verdict, check_call
    from prflow.config import PriceRow
    from prflow.llm.messages import LlmCallInput, LlmCallResult, MessageRef, ToolCall, ToolSpec
    from prflow.llm.token_estimate import estimate_input_tokens, tokens_for_chars

CONTINUE_PROMPT = (
    "Your last reply stopped at the output token limit. Continue from where it stopped, "
    "more briefly, and finish by calling the submit tool if one is available."
)


_STOP_FOR_LIMIT = {
    LimitKind.iterations: StopReason.iterations,
    LimitKind.wall_clock: StopReason.wall_clock,
    LimitKind.usd: StopReason.budget_usd,
    LimitKind.tokens: StopReason.budget_tokens,
}


class LlmCallPolicy(BaseModel):
    """Timeouts and retries of model calls, fixed when the run starts."""

    task_queue: str
    request_timeout_seconds: float = 120.0
    heartbeat_timeout_seconds: float = 30.0
    max_attempts: int = 5


class AgentConfig(BaseModel):
    """Everything one agent run needs; all values are decided before the loop starts."""

    workflow_kind: str
    phase: str
    model: str
    price: PriceRow
    max_tokens: int = 4096
    system_key: str
    system_chars: int
    initial_message_key: str
    initial_chars: int
    tools: list[ToolSpec] = Field(default_factory=list)
    terminal_tool: str | None = None
    llm: LlmCallPolicy
    raise_wait_seconds: float = 0.0
    repo: str | None = None
    pr_number: int | None = None


ToolRunner = Callable[[ToolCall], Awaitable[ToolResultPart]]


class AgentLoop:
    """Runs one conversation to a final answer, a terminal tool call, or a limit."""

    def __init__(
        self,
        config: AgentConfig,
        budget: PhaseBudget,
        run_tool: ToolRunner,
        on_turn: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._config = config
        self._budget = budget
        self._run_tool = run_tool
        self._on_turn = on_turn
        self.waiting_reason: str | None = None

    async def run(self) -> AgentOutcome:
        cfg = self._config
        started = workflow.now()
        messages = [MessageRef(role="user", blob_key=cfg.initial_message_key)]
        next_prompt_tokens = estimate_input_tokens(cfg.system_chars, cfg.tools, cfg.initial_chars)

        def verdict() -> Verdict:
            elapsed = (workflow.now() - started).total_seconds()
            return check_call(
                self._budget,
                price=cfg.price,
                estimated_input_tokens=next_prompt_tokens,
                max_tokens=cfg.max_tokens,
                elapsed_seconds=elapsed,
            )

        while True:
            check = verdict()
            if (
                not check.allowed
                and cfg.raise_wait_seconds > 0
                and check.limit != LimitKind.wall_clock
            ):
                check = await self._wait_for_raise(check, verdict)
            if not check.allowed:
                assert check.limit is not None
                return self._outcome(_STOP_FOR_LIMIT[check.limit], check.reason, messages)

            try:
                result = await self._call_model(messages)
            except ActivityError as err:
                return self._outcome(StopReason.llm_error, _failure_message(err), messages)

            self._account(result)
            messages.append(MessageRef(role="assistant", blob_key=result.assistant_key))
            if self._on_turn is not None:
                await self._on_turn()

            terminal = next(
                (
                    c
                    for c in result.tool_calls
                    if c.name == cfg.terminal_tool and c.input is not None
                ),
                None,
            )
            if terminal is not None:
                outcome = self._outcome(StopReason.terminal_tool, "", messages, result.text)
                outcome.terminal_input = terminal.input
                return outcome

            if result.tool_calls:
                parts = await asyncio.gather(*(self._answer_tool(c) for c in result.tool_calls))
                follow_up = await self._compose(ComposeInput(tool_results=list(parts)))
            elif result.stop_reason == "max_tokens":
                follow_up = await self._compose(ComposeInput(text=CONTINUE_PROMPT))
            else:
                return self._outcome(StopReason.final_answer, "", messages, result.text)
            messages.append(MessageRef(role="user", blob_key=follow_up.key))
            next_prompt_tokens = (
                result.usage.prompt_tokens
                + result.usage.output_tokens
                + tokens_for_chars(follow_up.chars)
            )

    async def _wait_for_raise(self, check: Verdict, verdict: Callable[[], Verdict]) -> Verdict:
        """Park the loop until an update raises the cap or the wait runs out."""
        self.waiting_reason = check.reason
        try:
            await workflow.wait_condition(
                lambda: verdict().allowed,
                timeout=timedelta(seconds=self._config.raise_wait_seconds),
            )
        except TimeoutError:
            pass
        finally:
            self.waiting_reason = None
        return verdict()

    async def _call_model(self, messages: list[MessageRef]) -> LlmCallResult:
        cfg = self._config
        turn = self._budget.spent.iterations + 1
        timeout = timedelta(seconds=cfg.llm.request_timeout_seconds * 1.2 + 5)
        result: LlmCallResult = await workflow.execute_activity(
            "llm_call",
            LlmCallInput(
                workflow_kind=cfg.workflow_kind,
                phase=cfg.phase,
                model=cfg.model,
                max_tokens=cfg.max_tokens,
                system_key=cfg.system_key,
                tools=cfg.tools,
                messages=list(messages),
                repo=cfg.repo,
                pr_number=cfg.pr_number,
            ),
            result_type=LlmCallResult,
            task_queue=cfg.llm.task_queue,
            start_to_close_timeout=timeout,
            heartbeat_timeout=timedelta(seconds=cfg.llm.heartbeat_timeout_seconds),
            schedule_to_close_timeout=timeout * cfg.llm.max_attempts + timedelta(minutes=5),
            retry_policy=RetryPolicy(
                initial_interval=timedelta(seconds=2),
                backoff_coefficient=2.0,
                maximum_interval=timedelta(seconds=60),
                maximum_attempts=cfg.llm.max_attempts,
                non_retryable_error_types=["UserError"],
            ),
            summary=f"{cfg.phase}: model turn {turn} ({cfg.model})",
        )
        return result

    def _account(self, result: LlmCallResult) -> None:
        spent = self._budget.spent
        spent.usd = round(spent.usd + result.usd, 8)
        spent.input_tokens += result.usage.input_tokens
        spent.output_tokens += result.usage.output_tokens
        spent.cache_write_tokens += result.usage.cache_write_tokens
        spent.cache_read_tokens += result.usage.cache_read_tokens
        spent.calls += 1
        spent.iterations += 1

    async def _answer_tool(self, call: ToolCall) -> ToolResultPart:
        if call.input_error is not None or call.input is None:
            return ToolResultPart(
                tool_use_id=call.id,
                text=f"Tool input was not a JSON object ({call.input_error}); send valid JSON.",
                is_error=True,
            )
        if call.name == self._config.terminal_tool:
            return ToolResultPart(tool_use_id=call.id, text="Accepted.", is_error=False)
        if call.name not in {t.name for t in self._config.tools}:
            return ToolResultPart(
                tool_use_id=call.id, text=f"Unknown tool {call.name!r}.", is_error=True
            )
        return await self._run_tool(call)

    async def _compose(self, inp: ComposeInput) -> ComposedMessage:
        return await workflow.execute_local_activity(
            compose_message,
            inp,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=5),
        )

    def _outcome(
        self, stop: StopReason, detail: str, messages: list[MessageRef], text: str = ""
    ) -> AgentOutcome:
        return AgentOutcome(
            stop=stop,
            detail=detail,
            final_text=text,
            iterations=self._budget.spent.iterations,
            transcript=list(messages),
        )


def _failure_message(err: ActivityError) -> str:
    cause = err.cause
    if isinstance(cause, ApplicationError):
        return f"{cause.type or 'error'}: {cause.message}"
    return str(cause or err)
