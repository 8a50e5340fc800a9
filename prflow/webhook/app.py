"""The webhook receiver: verify, map, signal-with-start, answer.

GitHub gives a receiver 10 seconds. This app never waits for work: per
delivery it checks the ``X-Hub-Signature-256`` HMAC on the raw body, maps the
event (:mod:`prflow.queue.events`) and signals the PR's workflow, which is one
round trip to Temporal whatever the queue depth. Review comments, review
threads, PR comments, pushes and closes also go to the PR's conversation
(:mod:`prflow.conversation.deliveries`), when prflow reviewed the PR. Answers:

- 202 with the PR workflow's id when the event was delivered;
- 200 with the reason when the event is not one the queue acts on;
- 401 for a missing or wrong signature, 400 for a body that is not the event or a field
  GitHub would never send (names, numbers and SHAs are checked by GitHub's rules);
- 415 for a content type other than GitHub's two (JSON, or a form whose ``payload``
  field holds the JSON; the signature covers the raw body either way);
- 503 when Temporal does not answer in time (GitHub shows the failure and the
  delivery can be redelivered; the delivery id makes that harmless).

``GET /healthz`` is liveness (the process serves); ``GET /readyz`` is
readiness (Temporal answers), for load balancers and Kubernetes probes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import timedelta
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from temporalio.client import Client

from prflow.conversation.deliveries import ConversationEvent, conversation_event
from prflow.conversation.kind import conversation_id
from prflow.pr_identifier import PullRequestRef
from prflow.queue.delivery import deliver
from prflow.queue.events import (
    DELIVERY_ID_PATTERN,
    Ignored,
    PayloadError,
    PrEvent,
    map_delivery,
)
from prflow.queue.kind import pr_queue_id
from prflow.queue.signature import SIGNATURE_HEADER, SignatureError, verify_signature
from prflow.queue.state import QueueNames

DELIVERY_TIMEOUT_SECONDS = 8.0
"""Under GitHub's 10 s, with room for the network on both sides."""
MAX_BODY_BYTES = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"  # GitHub's other choice: payload=<JSON>

log = logging.getLogger("prflow.webhook")


class Receiver:
    """The app's state: where to deliver, which jobs comments may ask for, and the secret."""

    def __init__(
        self,
        *,
        secret: str,
        queues: QueueNames,
        jobs: Sequence[str],
        connect: Callable[[], Awaitable[Client]],
    ) -> None:
        self.secret = secret
        self.queues = queues
        self.jobs = list(jobs)
        self._connect = connect
        self.client: Client | None = None

    async def deliver(self, event: PrEvent) -> None:
        if self.client is None:
            self.client = await self._connect()
        await deliver(self.client, event, self.queues)

    async def converse(self, pr: PullRequestRef, event: ConversationEvent) -> bool:
        """Signal the PR's conversation; False when prflow never reviewed the PR (none runs)."""
        from prflow.conversation.delivery import signal_conversation

        if self.client is None:
            self.client = await self._connect()
        return await signal_conversation(self.client, pr, event)

    async def temporal_answers(self) -> bool:
        try:
            if self.client is None:
                self.client = await self._connect()
            return await self.client.service_client.check_health(timeout=timedelta(seconds=2))
        except Exception:
            return False

    def unknown_jobs(self, event: PrEvent) -> list[str]:
        return [job for job in event.jobs if job not in self.jobs]


def create_app(receiver: Receiver) -> Starlette:
    """The ASGI app serving ``receiver``: ``POST /webhook``, ``GET /healthz``, ``GET /readyz``."""

    async def webhook(request: Request) -> Response:
        return await _handle(receiver, request)

    async def healthz(_: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(_: Request) -> Response:
        if await receiver.temporal_answers():
            return PlainTextResponse("ready")
        return PlainTextResponse("Temporal does not answer", status_code=503)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        with contextlib.suppress(Exception):  # not fatal: /readyz reports it, deliveries retry
            receiver.client = await receiver._connect()
        yield

    return Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/", webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


async def _handle(receiver: Receiver, request: Request) -> Response:
    try:
        body = await _read_body(request)
    except ClientDisconnect:
        client = request.client.host if request.client else "?"
        log.info("webhook client %s disconnected before sending its whole body", client)
        return _answer(400, error="the request body did not arrive")
    if body is None:
        return _answer(413, error="payload larger than GitHub sends")
    try:
        verify_signature(receiver.secret, body, request.headers.get(SIGNATURE_HEADER))
    except SignatureError as err:
        return _answer(401, error=str(err))
    event_name = request.headers.get("X-GitHub-Event", "")
    delivery_id = request.headers.get("X-GitHub-Delivery", "")
    if not event_name or not delivery_id:
        return _answer(400, error="X-GitHub-Event and X-GitHub-Delivery headers are required")
    if not re.fullmatch(DELIVERY_ID_PATTERN, delivery_id):
        return _answer(400, error="X-GitHub-Delivery is not a delivery id (GitHub sends a GUID)")
    media_type = request.headers.get("content-type", JSON).split(";")[0].strip().lower()
    if media_type not in {JSON, FORM}:
        return _answer(
            415,
            error=f"content type {media_type!r} is not one GitHub sends; set the webhook's "
            "content type to application/json",
        )
    try:
        payload = _decode(body, form=media_type == FORM)
        mapped = map_delivery(event_name, delivery_id, payload)
    except (ValueError, PayloadError, RecursionError) as err:
        reason = "JSON nested too deeply" if isinstance(err, RecursionError) else str(err)
        return _answer(400, error=reason[:300])
    talk = conversation_event(event_name, delivery_id, payload)
    if talk is not None:
        try:
            async with asyncio.timeout(DELIVERY_TIMEOUT_SECONDS):
                conversing = await receiver.converse(*talk)
        except Exception as err:  # Temporal down or slow: GitHub records the failure
            log.warning("delivery %s not handed to the conversation: %s", delivery_id, err)
            return _answer(503, error="Temporal did not take the event; redeliver it later")
        if isinstance(mapped, Ignored) and conversing:
            return _answer(202, delivered=conversation_id(talk[0]), kind=talk[1].kind)
    if isinstance(mapped, Ignored):
        return _answer(200, ignored=mapped.reason)
    unknown = receiver.unknown_jobs(mapped)
    if unknown:
        known = ", ".join(f"/prflow {job}" for job in receiver.jobs)
        return _answer(200, ignored=f"unknown job {', '.join(unknown)}; commands: {known}")
    try:
        async with asyncio.timeout(DELIVERY_TIMEOUT_SECONDS):
            await receiver.deliver(mapped)
    except Exception as err:  # Temporal down or slow: GitHub records the failure
        log.warning("delivery %s not handed to Temporal: %s", delivery_id, err)
        return _answer(503, error="Temporal did not take the event; redeliver it later")
    return _answer(202, delivered=pr_queue_id(mapped.pr), kind=mapped.kind.value)


async def _read_body(request: Request) -> bytes | None:
    """The raw body (the signature covers it), or None past GitHub's size cap."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _decode(body: bytes, *, form: bool) -> object:
    """The event: the JSON body, or the ``payload`` field of a form-encoded one."""
    if form:
        fields = parse_qs(body.decode("utf-8"), max_num_fields=16)
        if "payload" not in fields:
            raise ValueError("a form-encoded delivery carries the event in its payload field")
        text = fields["payload"][0]
    else:
        text = body.decode("utf-8")
    return json.loads(text)


def _answer(status: int, **fields: str) -> JSONResponse:
    return JSONResponse(fields, status_code=status)
