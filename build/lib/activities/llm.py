"""The ``llm_call`` activity: one Anthropic Messages API request per attempt.

The agent loop in workflow code calls this once per model turn. Temporal owns
retrying (the SDK's own retries are off), so every failure leaves here
classified: retryable with the API's ``retry-after`` as the next delay, or
non-retryable with the API's message. Every attempt, whatever its outcome,
writes one ledger row, because failed attempts cost time and budgets are
enforced from the ledger.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError

from prflow.config import Settings, cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.llm.cache_control import mark_last_tool, mark_previous_prefix, system_blocks
from prflow.llm.errors import is_retryable_status, retry_after_seconds
from prflow.llm.messages import LlmCallInput, LlmCallResult, ToolCall, Usage
from prflow.llm.pricing import price_for, usd_for
from prflow.store.blobs import BlobNotFound, get_json, get_text, put_json
from prflow.store.ledger import SUCCESS, LlmAttempt, record_attempt

if TYPE_CHECKING:  # the SDK takes ~2 s to import: only runs that call the model pay for it
    import anthropic

__all__ = ["API_KEY_ENV", "llm_call", "llm_configured"]

API_KEY_ENV = "ANTHROPIC_API_KEY"
HEARTBEAT_INTERVAL_SECONDS = 5.0
_T = TypeVar("_T")


@dataclass
class _AttemptRecord:
    """What this attempt's ledger row will say; filled in as the attempt goes."""

    usage: Usage = field(default_factory=Usage)
    usd: float = 0.0
    latency_ms: int = 0


@activity.defn(name="llm_configured")
def llm_configured() -> bool:
    """Whether this worker can call the model; without a key workflows run in static mode."""
    return bool(os.environ.get(API_KEY_ENV))


@activity.defn(name="llm_call")
async def llm_call(inp: LlmCallInput) -> LlmCallResult:
    """Send one model turn and return the answer; blocks are stored, the key returned."""
    settings = cached_settings()
    db_url = settings.resolved_database_url()
    record = _AttemptRecord()
    try:
        result = await _attempt(inp, settings, db_url, record)
    except asyncio.CancelledError as exc:
        await _record(db_url, inp, record, type(exc).__name__, "activity cancelled")
        raise
    except Exception as exc:
        failure = _as_application_error(exc)
        await _record(db_url, inp, record, failure.type or type(exc).__name__, failure.message)
        if failure is exc:
            raise
        raise failure from exc
    await _record(db_url, inp, record, SUCCESS, None)
    return result


async def _attempt(
    inp: LlmCallInput, settings: Settings, db_url: str, record: _AttemptRecord
) -> LlmCallResult:
    price = price_for(inp.model, settings.models.prices)
    api_key = os.environ.get(API_KEY_ENV)
    if not api_key:
        raise UserError(
            f"{API_KEY_ENV} is not set in the worker's environment: export it before "
            "starting the worker, or run without a model (static mode)."
        )
    request = await asyncio.to_thread(_build_request, inp, db_url)
    import anthropic

    client = anthropic.AsyncAnthropic(
        api_key=api_key,
        max_retries=0,
        timeout=settings.models.request_timeout_seconds,
    )
    started = time.monotonic()
    try:
        async with client:
            message = await _with_heartbeats(client.messages.create(**request))
    finally:
        record.latency_ms = round((time.monotonic() - started) * 1000)
    record.usage = _usage_of(message.usage)
    record.usd = usd_for(record.usage, price)
    # As received: a malformed tool input is kept for reporting (hence no serializer warnings).
    raw_blocks = [block.to_dict(mode="json", warnings=False) for block in message.content]
    stored = [_storable_block(block) for block in raw_blocks]
    assistant_key = await asyncio.to_thread(put_json, db_url, stored)
    return LlmCallResult(
        stop_reason=message.stop_reason or "unknown",
        assistant_key=assistant_key,
        text="".join(str(block["text"]) for block in raw_blocks if block["type"] == "text"),
        tool_calls=[_tool_call(block) for block in raw_blocks if block["type"] == "tool_use"],
        usage=record.usage,
        usd=record.usd,
        model=message.model,
        latency_ms=record.latency_ms,
    )


def _build_request(inp: LlmCallInput, db_url: str) -> dict[str, Any]:
    """Resolve the blobs into Messages API parameters, cache breakpoints in place.

    No sampling parameters are sent: current models reject non-default ones.
    """
    messages = [
        {"role": ref.role, "content": get_json(db_url, ref.blob_key)} for ref in inp.messages
    ]
    request: dict[str, Any] = {
        "model": inp.model,
        "max_tokens": inp.max_tokens,
        "system": system_blocks(get_text(db_url, inp.system_key)),
        "messages": mark_previous_prefix(messages),
    }
    if inp.tools:
        request["tools"] = mark_last_tool([tool.model_dump() for tool in inp.tools])
    return request


async def _with_heartbeats(call: Awaitable[_T]) -> _T:
    """Await ``call`` while heartbeating, so a dead worker is noticed before the timeout."""
    task = asyncio.ensure_future(call)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=HEARTBEAT_INTERVAL_SECONDS)
            if done:
                return task.result()
            activity.heartbeat()
    finally:
        task.cancel()


def _usage_of(usage: anthropic.types.Usage) -> Usage:
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_write_tokens=usage.cache_creation_input_tokens or 0,
        cache_read_tokens=usage.cache_read_input_tokens or 0,
    )


def _storable_block(block: dict[str, Any]) -> dict[str, Any]:
    """The block as received, except a malformed tool input becomes ``{}``.

    The API rejects a conversation whose ``tool_use`` input is not an object, so
    storing a malformed one verbatim would break every later turn; the loop
    learns of the problem from ``ToolCall.input_error`` instead.
    """
    if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
        return {**block, "input": {}}
    return block


def _tool_call(block: dict[str, Any]) -> ToolCall:
    raw_input = block.get("input")
    if isinstance(raw_input, dict):
        return ToolCall(id=str(block["id"]), name=str(block["name"]), input=raw_input)
    shown = repr(raw_input)
    if len(shown) > 200:
        shown = shown[:200] + "…"
    return ToolCall(
        id=str(block["id"]),
        name=str(block["name"]),
        input=None,
        input_error=f"tool input is {type(raw_input).__name__}, not a JSON object: {shown}",
    )


def _as_application_error(exc: Exception) -> ApplicationError:
    """Classify a failed attempt the way Temporal should treat it."""
    if isinstance(exc, ApplicationError):
        return exc
    if isinstance(exc, UserError):
        return ApplicationError(exc.message, type=USER_ERROR_TYPE, non_retryable=True)
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        retryable = is_retryable_status(exc.status_code, exc.error_code)
        delay = retry_after_seconds(exc.response.headers) if retryable else None
        return ApplicationError(
            f"Anthropic API {exc.status_code}: {exc.api_message or exc.message}",
            type=type(exc).__name__,
            non_retryable=not retryable,
            next_retry_delay=timedelta(seconds=delay) if delay is not None else None,
        )
    if isinstance(exc, BlobNotFound):
        # Another attempt reads the same database: the blob will not appear.
        return ApplicationError(str(exc), type=type(exc).__name__, non_retryable=True)
    # Connection errors, timeouts, unreadable responses, database hiccups: try again.
    return ApplicationError(str(exc) or type(exc).__name__, type=type(exc).__name__)


async def _record(
    db_url: str, inp: LlmCallInput, record: _AttemptRecord, outcome: str, error: str | None
) -> None:
    info = activity.info()
    row = LlmAttempt(
        workflow_id=info.workflow_id or "",
        run_id=info.workflow_run_id or "",
        activity_id=info.activity_id,
        attempt=info.attempt,
        workflow_kind=inp.workflow_kind,
        phase=inp.phase,
        model=inp.model,
        input_tokens=record.usage.input_tokens,
        output_tokens=record.usage.output_tokens,
        cache_write_tokens=record.usage.cache_write_tokens,
        cache_read_tokens=record.usage.cache_read_tokens,
        usd=record.usd,
        latency_ms=record.latency_ms,
        outcome=outcome,
        error=error,
        repo=inp.repo,
        pr_number=inp.pr_number,
    )
    await asyncio.to_thread(record_attempt, db_url, row)
