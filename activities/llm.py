"""The ``llm_call`` activity: one Anthropic Messages API request per attempt.

The agent loop in workflow code calls this once per model turn. Temporal owns
retrying (the SDK's own retries are off), so every failure leaves here
classified: retryable with the API's ``retry-after`` as the next delay, or
non-retryable with the API's message. Every attempt writes one ledger row
before its request leaves (``sent``, at its worst-case cost) and completes it
with the outcome, so an attempt cut off by a dead worker is still accounted.

The conversation arrives as a transcript key; the answer is stored and a new
transcript key returned, so workflow history carries keys, not messages.

Every answer received is kept by the question it answers (see
:mod:`prflow.store.llm_answers`) before the activity returns: an attempt whose
completion never reached the server (the server died, the report was lost)
is retried, and the retry returns the kept answer instead of sending again;
so does any later request of the run identical to one already answered. Such
an attempt's ledger row says ``reused`` at $0. A request identical to one
still in flight (two agents asking the same question at once) waits for that
answer instead of sending: the first attempt claims the question, the others
poll for the answer, heartbeating, and take the claim over if it is released
(the request failed) or outlives the request timeout (its worker died).

Agents started together that open with the same shared context (a run's
reviewers) would each write that prompt prefix to the cache, since the API
makes a prefix readable only once the response that wrote it begins. So the
first request carrying a cacheable shared prefix claims it (see
:mod:`prflow.store.prefix_claims`) and the others of the run wait, the same
way, until its answer is in, then send and read the prefix; a waiter sends
anyway after a few seconds (:data:`PREFIX_READY_SECONDS`: by then the writing
response has begun) or once its own request would no longer fit in the
activity's timeout.
Every answered request carrying the prefix keeps it marked as in the cache;
one unused for the cache's lifetime is claimed and written once again.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError

from prflow.agent.budget import worst_case_usd
from prflow.agent.transcript import content_chars, elide_tool_results
from prflow.config import PriceRow, Settings, cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.llm.cache_control import (
    has_shared_prefix,
    mark_conversation,
    mark_last_tool,
    system_blocks,
)
from prflow.llm.errors import is_retryable_status, retry_after_seconds
from prflow.llm.messages import LlmCallInput, LlmCallResult, MessageRef, ToolCall
from prflow.llm.pricing import price_for, usd_for
from prflow.llm.request_identity import attempt_scope, request_digest
from prflow.llm.shared_prefix import cacheable_prefix_digest
from prflow.llm.token_estimate import tokens_for_chars
from prflow.llm.usage import Usage
from prflow.store.blobs import BlobNotFound, get_json, get_text, put_json
from prflow.store.ledger import REUSED, SENT, SUCCESS, LlmAttempt, complete_attempt, record_sent
from prflow.store.llm_answers import (
    ClaimState,
    KeptAnswer,
    claim_question,
    find_answer,
    keep_answer,
    release_claim,
)
from prflow.store.prefix_claims import (
    PrefixState,
    claim_prefix,
    mark_prefix_used,
    mark_prefix_written,
    release_prefix,
)
from prflow.store.transcripts import load_transcript, store_transcript

if TYPE_CHECKING:  # the SDK takes ~2 s to import: only runs that call the model pay for it
    import anthropic

__all__ = ["API_KEY_ENV", "llm_call", "llm_configured"]

API_KEY_ENV = "ANTHROPIC_API_KEY"
HEARTBEAT_INTERVAL_SECONDS = 5.0
CLAIM_POLL_SECONDS = (0.1, 0.25, 0.5, 1.0)
"""How long a waiting attempt sleeps between looks at a claimed question (the last repeats)."""
CLAIM_GRACE_SECONDS = 30.0
PREFIX_READY_SECONDS = 8.0
"""The longest a request waits for another's shared prefix. The API makes a prefix readable
once the writing response *begins* (after the prompt is read, seconds in), but a
non-streamed answer tells us only when it ends, which for a long answer is far later:
past this, the prefix is taken as cached and the request sends (at worst writing it too)."""
"""A claim outlives its request's timeout by this much before another attempt takes it over."""
_T = TypeVar("_T")


@dataclass
class _AttemptRecord:
    """What this attempt's ledger row will say; filled in as the attempt goes."""

    usage: Usage = field(default_factory=Usage)
    usd: float = 0.0
    worst_case_usd: float = 0.0
    latency_ms: int = 0
    outcome: str = SUCCESS


@dataclass(frozen=True)
class _Question:
    """One attempt's request, its digest, the conversation it grows and its answer scopes."""

    request: dict[str, Any]
    digest: str
    transcript: list[MessageRef]
    scopes: list[str]


@dataclass(frozen=True)
class _PrefixClaim:
    """A run's shared prompt prefix (its digest) as one attempt (``owner``) claims it."""

    run: str
    digest: str
    owner: str


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
        price = inp.price or price_for(inp.model, settings.models.prices)
        result = await _attempt(inp, settings, db_url, price, record)
    except asyncio.CancelledError as exc:
        await _complete(db_url, inp, record, type(exc).__name__, "activity cancelled")
        raise
    except Exception as exc:
        failure = _as_application_error(exc)
        await _complete(db_url, inp, record, failure.type or type(exc).__name__, failure.message)
        if failure is exc:
            raise
        raise failure from exc
    await _complete(db_url, inp, record, record.outcome, None)
    return result


async def _attempt(
    inp: LlmCallInput, settings: Settings, db_url: str, price: PriceRow, record: _AttemptRecord
) -> LlmCallResult:
    api_key = os.environ.get(API_KEY_ENV)
    if not api_key:
        raise UserError(
            f"{API_KEY_ENV} is not set in the worker's environment: export it before "
            "starting the worker, or run without a model (static mode)."
        )
    transcript = await asyncio.to_thread(_load_transcript, inp, db_url)
    request = await asyncio.to_thread(_build_request, inp, transcript, db_url)
    digest = request_digest(request)
    scopes = _answer_scopes(inp)
    kept, claimed = await _kept_or_claimed(inp, settings, db_url, scopes, digest)
    if kept is not None:
        record.outcome = REUSED
        return await asyncio.to_thread(_reused, db_url, kept, scopes[0])
    prefix = cacheable_prefix_digest(request) if inp.answer_scope is not None else None
    writing: _PrefixClaim | None = None
    try:
        if inp.answer_scope is not None and prefix is not None:
            wanted = _PrefixClaim(inp.answer_scope, prefix, scopes[0])
            writing = await _wait_for_prefix(settings, db_url, wanted)
        sent = _Question(request, digest, transcript, scopes)
        result = await _send(inp, settings, db_url, price, record, sent, api_key)
    except BaseException:
        if claimed is not None:
            await asyncio.to_thread(release_claim, db_url, claimed, digest, scopes[0])
        if writing is not None:
            await asyncio.to_thread(
                release_prefix, db_url, writing.run, writing.digest, writing.owner
            )
        raise
    if writing is not None:
        await asyncio.to_thread(mark_prefix_written, db_url, writing.run, writing.digest)
    elif inp.answer_scope is not None and prefix is not None:  # read it: it stays cached
        await asyncio.to_thread(mark_prefix_used, db_url, inp.answer_scope, prefix)
    return result


async def _wait_for_prefix(
    settings: Settings, db_url: str, wanted: _PrefixClaim
) -> _PrefixClaim | None:
    """Wait until the run's shared prefix is in the prompt cache (None), or claim it.

    The claim is returned when this attempt writes the prefix (it claimed it, or waited
    as long as it may): the prefix is marked written once the answer is in, or released
    if the request fails.
    """
    limit = settings.models.request_timeout_seconds + CLAIM_GRACE_SECONDS
    wait = min(PREFIX_READY_SECONDS, _prefix_wait_seconds(settings.models.request_timeout_seconds))
    deadline = time.monotonic() + wait
    polls = 0
    while True:
        state = await asyncio.to_thread(
            claim_prefix,
            db_url,
            wanted.run,
            wanted.digest,
            wanted.owner,
            expires_after=timedelta(seconds=limit),
        )
        if state is PrefixState.written:
            return None
        if state is PrefixState.mine or time.monotonic() >= deadline:
            return wanted
        activity.heartbeat()
        await asyncio.sleep(CLAIM_POLL_SECONDS[min(polls, len(CLAIM_POLL_SECONDS) - 1)])
        polls += 1


def _prefix_wait_seconds(request_timeout: float) -> float:
    """How long this attempt may wait for a shared prefix: never past the point where its
    own request no longer fits in the activity's timeout, nor past the request timeout
    plus grace (the writer's claim expires then)."""
    limit = request_timeout + CLAIM_GRACE_SECONDS
    info = activity.info()
    if info.start_to_close_timeout is None:
        return limit
    spent = (datetime.now(UTC) - info.started_time).total_seconds()
    room = info.start_to_close_timeout.total_seconds() - spent - request_timeout
    return max(0.0, min(limit, room))


async def _kept_or_claimed(
    inp: LlmCallInput, settings: Settings, db_url: str, scopes: list[str], digest: str
) -> tuple[KeptAnswer | None, str | None]:
    """A kept answer to reuse, else the scope this attempt claimed the question in (if any).

    While another attempt of the run holds the question, wait for its answer.
    """
    run = inp.answer_scope
    expires = timedelta(seconds=settings.models.request_timeout_seconds + CLAIM_GRACE_SECONDS)
    polls = 0
    while True:
        kept = await asyncio.to_thread(find_answer, db_url, scopes, digest, inp.max_tokens)
        if kept is not None or run is None:
            return kept, None
        state = await asyncio.to_thread(
            claim_question, db_url, run, digest, scopes[0], expires_after=expires
        )
        if state is ClaimState.mine:
            return None, run
        if state is ClaimState.answered:
            return None, None
        activity.heartbeat()
        await asyncio.sleep(CLAIM_POLL_SECONDS[min(polls, len(CLAIM_POLL_SECONDS) - 1)])
        polls += 1


async def _send(
    inp: LlmCallInput,
    settings: Settings,
    db_url: str,
    price: PriceRow,
    record: _AttemptRecord,
    question: _Question,
    api_key: str,
) -> LlmCallResult:
    request, digest, transcript, scopes = (
        question.request,
        question.digest,
        question.transcript,
        question.scopes,
    )
    record.worst_case_usd = worst_case_usd(
        price, tokens_for_chars(content_chars([request])), inp.max_tokens
    )
    await asyncio.to_thread(record_sent, db_url, _row(inp, record, SENT, None))
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
    grown = [*transcript, MessageRef(role="assistant", blob_key=assistant_key)]
    transcript_key = await asyncio.to_thread(store_transcript, db_url, grown)
    result = LlmCallResult(
        stop_reason=message.stop_reason or "unknown",
        assistant_key=assistant_key,
        text="".join(str(block["text"]) for block in raw_blocks if block["type"] == "text"),
        tool_calls=[_tool_call(block) for block in raw_blocks if block["type"] == "tool_use"],
        usage=record.usage,
        usd=record.usd,
        model=message.model,
        latency_ms=record.latency_ms,
        transcript_key=transcript_key,
        transcript_len=len(grown),
    )
    await asyncio.to_thread(_keep, db_url, scopes, digest, inp.max_tokens, result)
    return result


def _answer_scopes(inp: LlmCallInput) -> list[str]:
    """Where this attempt's answer is kept and looked for: its activity's scope first."""
    info = activity.info()
    scopes = [attempt_scope(info.workflow_id or "", info.activity_id)]
    if inp.answer_scope is not None:
        scopes.append(inp.answer_scope)
    return scopes


def _keep(
    db_url: str, scopes: list[str], digest: str, max_tokens: int, result: LlmCallResult
) -> None:
    answer_key = put_json(db_url, result)
    keep_answer(
        db_url, scopes, digest, answer_key, max_tokens=max_tokens, stop_reason=result.stop_reason
    )


def _reused(db_url: str, kept: KeptAnswer, own_scope: str) -> LlmCallResult:
    """The kept answer; one kept by another agent of the run costs this agent nothing.

    An answer kept under this activity's own scope was never reported to the
    workflow (its completion was lost), so it keeps the usage and price it was
    paid at: the workflow's budget counts it once, now.
    """
    result = LlmCallResult.model_validate(get_json(db_url, kept.answer_key))
    if kept.scope == own_scope:
        return result.model_copy(update={"reused": True})
    return result.model_copy(update={"reused": True, "usage": Usage(), "usd": 0.0})


def _load_transcript(inp: LlmCallInput, db_url: str) -> list[MessageRef]:
    if inp.transcript_key is not None:
        return load_transcript(db_url, inp.transcript_key)
    return list(inp.messages)


def _build_request(inp: LlmCallInput, transcript: list[MessageRef], db_url: str) -> dict[str, Any]:
    """Resolve the blobs into Messages API parameters, cache breakpoints in place.

    No sampling parameters are sent: current models reject non-default ones.
    """
    messages = [{"role": ref.role, "content": get_json(db_url, ref.blob_key)} for ref in transcript]
    request: dict[str, Any] = {
        "model": inp.model,
        "max_tokens": inp.max_tokens,
        "system": system_blocks(get_text(db_url, inp.system_key)),
        "messages": mark_conversation(elide_tool_results(messages, inp.elide_before)),
    }
    tools = [tool.model_dump() for tool in inp.tools]
    if inp.tools_key is not None:
        tools = list(get_json(db_url, inp.tools_key))
    if tools:  # the system's mark covers the tools too when a shared prefix needs a mark
        shared = has_shared_prefix(request["messages"]) and bool(request["system"][0]["text"])
        request["tools"] = tools if shared else mark_last_tool(tools)
    if inp.force_tool is not None:  # absent otherwise: earlier requests stay byte for byte
        request["tool_choice"] = {"type": "tool", "name": inp.force_tool}
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


def _row(inp: LlmCallInput, record: _AttemptRecord, outcome: str, error: str | None) -> LlmAttempt:
    info = activity.info()
    return LlmAttempt(
        workflow_id=info.workflow_id or "",
        run_id=info.workflow_run_id or "",
        activity_id=info.activity_id,
        attempt=info.attempt,
        workflow_kind=inp.workflow_kind,
        phase=inp.phase,
        model=inp.model,
        **record.usage.model_dump(),
        usd=record.usd,
        worst_case_usd=record.worst_case_usd,
        latency_ms=record.latency_ms,
        outcome=outcome,
        error=error,
        repo=inp.repo,
        pr_number=inp.pr_number,
    )


async def _complete(
    db_url: str, inp: LlmCallInput, record: _AttemptRecord, outcome: str, error: str | None
) -> None:
    await asyncio.to_thread(complete_attempt, db_url, _row(inp, record, outcome, error))
