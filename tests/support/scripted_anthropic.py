"""A loopback Anthropic Messages API server that plays a script, for tests.

The real ``anthropic`` SDK talks to it through ``ANTHROPIC_BASE_URL``, so the
client, its error classes and its header parsing are exercised for real.
``POST /v1/messages`` answers with full message objects and API-shaped errors.

The script is a list of :class:`Turn`. A request is served by the turn whose
index is the number of assistant messages it carries, so a retried or
replayed request gets the same answer, even from a restarted worker. Each turn
may carry faults, used one per attempt before the answer is given. Runs with
several agents script each conversation apart (:meth:`ScriptedAnthropic.route`):
a request follows the first route whose key appears in its system prompt or
its first user message.

Token usage is derived from request size, and a request carrying
``cache_control`` reports cache reads for any prefix an earlier request wrote,
so tests can see whether prompt prefixes stay stable between calls. As on the
real API, a written prefix becomes readable only when the response of the
request that wrote it begins (after its delay or release gate; an error or a
hang writes nothing), so requests sent together all write it.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

MAX_CACHE_BREAKPOINTS = 4
CACHE_LOOKBACK_BLOCKS = 20
CHARS_PER_TOKEN = 4
_GATE_POLL_SECONDS = 0.05


# ---------------------------------------------------------------- script


@dataclass(frozen=True)
class ToolUse:
    """A ``tool_use`` block the scripted model emits."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ApiError:
    """Fault: answer one attempt with an API error."""

    status: int
    error_type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """Fault: hold the connection without answering, longer than any client timeout."""

    seconds: float = 30.0


@dataclass(frozen=True)
class MalformedToolInput:
    """Fault: a ``tool_use`` block whose ``input`` is not a JSON object."""

    name: str
    raw_input: object = '{"path": "src/app.py", "line'


@dataclass(frozen=True)
class CutOff:
    """Fault: the answer stops at ``max_tokens`` in the middle of ``text``."""

    text: str


Fault = ApiError | Hang | MalformedToolInput | CutOff


def rate_limited(retry_after: float = 2.0, *, milliseconds: bool = False) -> ApiError:
    """429 with the wait in ``retry-after`` (seconds) or ``retry-after-ms``."""
    header = (
        {"retry-after-ms": str(round(retry_after * 1000))}
        if milliseconds
        else {"retry-after": f"{retry_after:g}"}
    )
    return ApiError(
        429, "rate_limit_error", "Number of requests has exceeded your rate limit.", header
    )


def overloaded() -> ApiError:
    return ApiError(529, "overloaded_error", "Overloaded")


def server_error() -> ApiError:
    return ApiError(500, "api_error", "Internal server error")


def bad_request(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)


def unauthorized() -> ApiError:
    return ApiError(401, "authentication_error", "invalid x-api-key")


@dataclass
class Turn:
    """One scripted model answer, with the faults that precede it.

    With ``release`` set, the answer waits until the test sets the event, so a
    test can stop a worker while the call is in flight.
    """

    text: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    thinking: str | None = None
    faults: list[Fault] = field(default_factory=list)
    release: threading.Event | None = None
    delay_seconds: float = 0.0
    """How long the answer takes: a model that thinks (for wall-time measurements)."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request as received, and what the server decided to answer."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    turn: int | None
    served: str
    status: int
    response: dict[str, Any] | None = None
    route: str | None = None
    received_at: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when the request arrived (for wall-time measurements)."""

    @property
    def usage(self) -> dict[str, Any] | None:
        """The usage the answer reported (None for errors and hangs)."""
        return None if self.response is None else self.response.get("usage")


# ---------------------------------------------------------------- prompt prefix


def prompt_segments(body: dict[str, Any]) -> list[str]:
    """The request's prompt as cacheable units, in cache order: tools, system, messages.

    ``cache_control`` is left out, so moving a breakpoint does not change the prefix.
    """
    return [segment for segment, _ in _segments_with_marks(body)]


def cache_breakpoints(body: dict[str, Any]) -> list[str]:
    """Where the request put ``cache_control``: ``tools[i]``, ``system[i]``,
    ``messages[i].content[j]``."""
    found: list[str] = []
    for index, tool in enumerate(body.get("tools") or []):
        if "cache_control" in tool:
            found.append(f"tools[{index}]")
    system = body.get("system")
    if isinstance(system, list):
        found.extend(f"system[{i}]" for i, block in enumerate(system) if "cache_control" in block)
    for m_index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, list):
            found.extend(
                f"messages[{m_index}].content[{b_index}]"
                for b_index, block in enumerate(content)
                if isinstance(block, dict) and "cache_control" in block
            )
    return found


def assert_prefix_stable(earlier: RecordedRequest, later: RecordedRequest) -> None:
    """Fail unless ``later`` repeats ``earlier``'s whole prompt unchanged before its new part."""
    before = prompt_segments(earlier.body)
    after = prompt_segments(later.body)
    for index, segment in enumerate(before):
        if index >= len(after):
            raise AssertionError(f"later prompt is shorter: it ends before segment {index}")
        if after[index] != segment:
            raise AssertionError(
                f"prompt prefix diverges at segment {index}:\n  was {segment}\n  now {after[index]}"
            )


def _segments_with_marks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    units: list[tuple[dict[str, Any], bool]] = []
    for tool in body.get("tools") or []:
        units.append(({"tool": tool}, "cache_control" in tool))
    system = body.get("system")
    if isinstance(system, str) and system:
        units.append(({"system": {"type": "text", "text": system}}, False))
    elif isinstance(system, list):
        units.extend(({"system": block}, "cache_control" in block) for block in system)
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            marked = isinstance(block, dict) and "cache_control" in block
            units.append(({"role": message.get("role"), "block": block}, marked))
    return [(_canonical(unit), marked) for unit, marked in units]


def _canonical(value: Any) -> str:
    return json.dumps(_strip_cache_control(value), sort_keys=True, separators=(",", ":"))


def _strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(item) for item in value]
    return value


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


@dataclass(frozen=True)
class CacheUsage:
    """What one request's prompt costs at the cache, and the prefixes it writes."""

    fresh: int
    write: int
    read: int
    writes: frozenset[str] = frozenset()
    """Prefix hashes the request writes; readable once :meth:`PromptCache.commit` records them."""


class PromptCache:
    """The server's memory of written prompt prefixes, keyed by model and content hash.

    As on the real API, reads are decided when a request arrives, but what it
    writes becomes readable only when its response begins (:meth:`commit`), so
    requests sent together each write a prefix none of them has written yet.
    """

    def __init__(self, min_cacheable_tokens: int) -> None:
        self._written: set[str] = set()
        self._min_tokens = min_cacheable_tokens

    def plan(self, body: dict[str, Any]) -> CacheUsage:
        """``body``'s usage against what is written now; records nothing."""
        segments = _segments_with_marks(body)
        hashes: list[str] = []
        totals: list[int] = []
        running_hash, running_total = _digest(body.get("model")), 0
        for segment, _ in segments:
            running_hash = _digest(running_hash, segment)
            running_total += _tokens(segment)
            hashes.append(running_hash)
            totals.append(running_total)
        breakpoints = [i for i, (_, marked) in enumerate(segments) if marked]
        read = 0
        for point in breakpoints:
            for index in range(point, max(-1, point - CACHE_LOOKBACK_BLOCKS), -1):
                if hashes[index] in self._written:
                    read = max(read, totals[index])
                    break
        write = 0
        writes: frozenset[str] = frozenset()
        cacheable = [p for p in breakpoints if totals[p] >= self._min_tokens]
        if cacheable:
            write = max(0, totals[cacheable[-1]] - read)
            writes = frozenset(hashes[p] for p in cacheable)
        return CacheUsage(running_total - read - write, write, read, writes)

    def commit(self, writes: frozenset[str]) -> None:
        """Make prefixes readable: the response that wrote them has begun."""
        self._written.update(writes)

    def usage_for(self, body: dict[str, Any]) -> tuple[int, int, int]:
        """(fresh input, cache write, cache read) tokens of ``body``, its writes readable at once
        (a request answered before the next is sent)."""
        usage = self.plan(body)
        self.commit(usage.writes)
        return usage.fresh, usage.write, usage.read


# ---------------------------------------------------------------- server


class ScriptedAnthropic:
    """The server; start it, hand :attr:`url` to the SDK, read :attr:`requests` after."""

    def __init__(self, turns: Sequence[Turn] = (), *, min_cacheable_tokens: int = 0) -> None:
        self._lock = threading.Condition()
        self._turns: list[Turn] = list(turns)
        self._routes: dict[str, list[Turn]] = {}
        self._served_per_turn: dict[tuple[str | None, int], int] = {}
        self._requests: list[RecordedRequest] = []
        self._cache = PromptCache(min_cacheable_tokens)
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ScriptedAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedAnthropic:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def script(self, turns: Sequence[Turn]) -> None:
        """Replace the script; faults of the new turns start unused."""
        with self._lock:
            self._turns = list(turns)
            self._served_per_turn.clear()

    def route(self, routes: Mapping[str, Sequence[Turn]]) -> None:
        """Script several conversations: a request whose system prompt or first user
        message contains a key (tried in order) is served from that key's turns; others
        from :meth:`script`'s. Replaces earlier routes; their faults start unused."""
        with self._lock:
            self._routes = {key: list(turns) for key, turns in routes.items()}
            self._served_per_turn.clear()

    def requests_of(self, route: str) -> list[RecordedRequest]:
        """The requests that followed ``route``."""
        return [r for r in self.requests if r.route == route]

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, oldest first (a snapshot)."""
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[RecordedRequest]:
        """Block until ``count`` requests have arrived; they are logged on arrival."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._requests) >= count, timeout=timeout):
                raise TimeoutError(f"expected {count} requests, got {len(self._requests)}")
            return list(self._requests)

    # -- request handling (server threads)

    def _decide(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> _Decision:
        """Pick the answer for one request and log it, atomically."""
        with self._lock:
            route = _route_of(body, self._routes)
            decision = self._choose(path, headers, body, route)
            self._requests.append(
                RecordedRequest(
                    path=path,
                    headers=headers,
                    body=body,
                    turn=decision.turn,
                    served=decision.served,
                    status=decision.status,
                    response=decision.payload if decision.status == 200 else None,
                    route=route,
                )
            )
            self._lock.notify_all()
            return decision

    def _choose(
        self, path: str, headers: dict[str, str], body: dict[str, Any], route: str | None
    ) -> _Decision:
        problem = _validation_error(path, headers, body)
        if problem is not None:
            return _error_decision(problem, turn=None, served="invalid")
        turns = self._turns if route is None else self._routes[route]
        turn_index = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        if turn_index >= len(turns):
            where = f" of route {route!r}" if route else ""
            message = f"scripted server has no turn {turn_index}{where} ({len(turns)} scripted)"
            return _error_decision(bad_request(message), turn=turn_index, served="invalid")
        turn = _forced(turns, turn_index, body.get("tool_choice"))
        if turn is None:
            message = f"tool_choice forces a tool no scripted turn from {turn_index} calls"
            return _error_decision(bad_request(message), turn=turn_index, served="invalid")
        attempt = self._served_per_turn.get((route, turn_index), 0)
        self._served_per_turn[(route, turn_index)] = attempt + 1
        fault = turn.faults[attempt] if attempt < len(turn.faults) else None
        if isinstance(fault, ApiError):
            return _error_decision(fault, turn=turn_index, served=f"error {fault.status}")
        if isinstance(fault, Hang):
            return _Decision(turn_index, "hang", 0, {}, {}, hang_seconds=fault.seconds)
        content, stop_reason, output_tokens = _answer(turn, turn_index, fault, body)
        cache = self._cache.plan(body)
        fresh, write, read = cache.fresh, cache.write, cache.read
        payload = {
            "id": "msg_" + _digest("message", turn_index, attempt)[:24],
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": fresh,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": write,
                    "ephemeral_1h_input_tokens": 0,
                },
                "service_tier": "standard",
            },
        }
        served = "answer" if fault is None else type(fault).__name__
        return _Decision(
            turn_index,
            served,
            200,
            payload,
            {},
            release=turn.release,
            delay_seconds=turn.delay_seconds if fault is None else 0.0,
            cache_writes=cache.writes,
        )

    def _begin_response(self, decision: _Decision) -> None:
        """The response starts: what its request wrote to the cache becomes readable."""
        with self._lock:
            self._cache.commit(decision.cache_writes)

    def _wait_for_release(self, gate: threading.Event) -> bool:
        while not gate.wait(_GATE_POLL_SECONDS):
            if self._stopping.is_set():
                return False
        return True


@dataclass
class _Decision:
    turn: int | None
    served: str
    status: int
    payload: dict[str, Any]
    headers: dict[str, str]
    hang_seconds: float = 0.0
    release: threading.Event | None = None
    delay_seconds: float = 0.0
    cache_writes: frozenset[str] = frozenset()


def _forced(turns: Sequence[Turn], index: int, choice: object) -> Turn | None:
    """The turn that answers at ``index``: with ``tool_choice`` forcing a tool, as the API
    guarantees, the first turn from ``index`` on that calls it (the scripted model says
    now what it would have said later); None when no such turn is scripted."""
    if not isinstance(choice, dict) or choice.get("type") != "tool":
        return turns[index]
    name = choice.get("name")
    for turn in turns[index:]:
        if any(use.name == name for use in turn.tool_uses):
            return turn
    return None


def _error_decision(error: ApiError, *, turn: int | None, served: str) -> _Decision:
    payload = {
        "type": "error",
        "error": {"type": error.error_type, "message": error.message},
        "request_id": "req_" + _digest("error", served, turn, error.status)[:24],
    }
    return _Decision(turn, served, error.status, payload, dict(error.headers))


def _route_of(body: dict[str, Any], routes: Mapping[str, Sequence[Turn]]) -> str | None:
    """The first route whose key appears in the system prompt or the first user message."""
    if not routes:
        return None
    system = body.get("system")
    texts = [system] if isinstance(system, str) else [b.get("text", "") for b in system or []]
    messages = body.get("messages") or []
    first = messages[0].get("content") if messages else ""
    if isinstance(first, str):
        texts.append(first)
    elif isinstance(first, list):
        texts += [str(b.get("text", "")) for b in first if isinstance(b, dict)]
    haystack = "\n".join(str(t) for t in texts)
    return next((key for key in routes if key in haystack), None)


def _validation_error(path: str, headers: dict[str, str], body: dict[str, Any]) -> ApiError | None:
    """The checks the real API makes that a client bug would trip."""
    if path.split("?", maxsplit=1)[0] != "/v1/messages":
        return ApiError(404, "not_found_error", f"Not found: {path}")
    if not (headers.get("x-api-key") or headers.get("authorization")):
        return ApiError(401, "authentication_error", "x-api-key header is required")
    if not headers.get("anthropic-version"):
        return bad_request("anthropic-version: header is required")
    if not isinstance(body.get("model"), str):
        return bad_request("model: Field required")
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return bad_request("max_tokens: Field required")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return bad_request("messages: at least one message is required")
    marks = sum(1 for _, marked in _segments_with_marks(body) if marked)
    if marks > MAX_CACHE_BREAKPOINTS:
        return bad_request(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {marks}."
        )
    for index, message in enumerate(messages):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
                return bad_request(
                    f"messages.{index}.content: tool_use.input: Input should be an object"
                )
    return None


def _answer(
    turn: Turn, turn_index: int, fault: Fault | None, body: dict[str, Any]
) -> tuple[list[dict[str, Any]], str, int]:
    """Content blocks, stop reason and output tokens of a 200 answer."""
    if isinstance(fault, CutOff):
        return [{"type": "text", "text": fault.text}], "max_tokens", int(body["max_tokens"])
    if isinstance(fault, MalformedToolInput):
        block = {
            "type": "tool_use",
            "id": _tool_use_id(turn_index, 0),
            "name": fault.name,
            "input": fault.raw_input,
        }
        return [block], "tool_use", _tokens(json.dumps(block))
    content: list[dict[str, Any]] = []
    if turn.thinking is not None:
        signature = _digest("thinking", turn_index, turn.thinking)
        content.append({"type": "thinking", "thinking": turn.thinking, "signature": signature})
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for index, use in enumerate(turn.tool_uses):
        content.append(
            {
                "type": "tool_use",
                "id": _tool_use_id(turn_index, index),
                "name": use.name,
                "input": use.input,
            }
        )
    stop_reason = "tool_use" if turn.tool_uses else "end_turn"
    return content, stop_reason, _tokens(json.dumps(content))


def _tool_use_id(turn_index: int, position: int) -> str:
    return "toolu_" + _digest("tool_use", turn_index, position)[:24]


def _handler_for(server: ScriptedAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            if not isinstance(body, dict):
                body = {}
            decision = server._decide(self.path, headers, body)
            if decision.served == "hang":
                server._stopping.wait(decision.hang_seconds)
                self.close_connection = True
                return
            if decision.release is not None and not server._wait_for_release(decision.release):
                self.close_connection = True
                return
            if decision.delay_seconds and server._stopping.wait(decision.delay_seconds):
                self.close_connection = True
                return
            server._begin_response(decision)
            self._send(decision)

        def _send(self, decision: _Decision) -> None:
            data = json.dumps(decision.payload).encode()
            request_id = (
                decision.payload.get("request_id")
                or "req_" + _digest("ok", decision.payload.get("id"))[:24]
            )
            try:
                self.send_response(decision.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", str(request_id))
                for name, value in decision.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the request log is the record."""

    return Handler
