"""The shared prompt prefix of a request: what names it and when it is worth waiting for."""

from __future__ import annotations

import copy
from typing import Any

from prflow.llm.cache_control import EPHEMERAL, mark_conversation, shared_prefix_blocks
from prflow.llm.request_identity import request_digest
from prflow.llm.shared_prefix import (
    MIN_CACHEABLE_PREFIX_TOKENS,
    cacheable_prefix_digest,
    prefix_digest,
    shared_prefix,
)

SHARED = "PR #7: retries bounded.\n" + "src/module.py changed\n" * 200
TOOLS = [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]


def _request(shared: str, own: str, **changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "Review.", "cache_control": dict(EPHEMERAL)}],
        "tools": TOOLS,
        "messages": mark_conversation(
            [{"role": "user", "content": shared_prefix_blocks(shared, own)}]
        ),
    }
    return request | changes


def test_agents_asking_their_own_questions_after_the_same_context_share_one_prefix() -> None:
    first, second = _request(SHARED, "Check security."), _request(SHARED, "Check performance.")
    assert request_digest(first) != request_digest(second)
    digest = cacheable_prefix_digest(first)
    assert digest is not None and len(digest) == 64
    assert cacheable_prefix_digest(second) == digest


def test_the_prefix_ignores_cache_marks_but_not_model_tools_system_or_context() -> None:
    base = _request(SHARED, "Check security.")
    unmarked = copy.deepcopy(base)
    unmarked["system"][0].pop("cache_control")
    assert cacheable_prefix_digest(unmarked) == cacheable_prefix_digest(base)
    others = [
        _request(SHARED, "Check security.", model="claude-haiku-5"),
        _request(SHARED, "Check security.", tools=[]),
        _request(SHARED, "Check security.", system=[{"type": "text", "text": "Edit."}]),
        _request(SHARED + "one more line", "Check security."),
    ]
    assert len({cacheable_prefix_digest(r) for r in [base, *others]}) == 5


def test_a_prefix_digest_is_never_a_request_digest() -> None:
    request = _request(SHARED, "Check security.")
    prefix = shared_prefix(request)
    assert prefix is not None
    assert prefix_digest(prefix) != request_digest(prefix)


def test_no_shared_context_or_a_prefix_too_small_to_cache_means_no_prefix() -> None:
    assert cacheable_prefix_digest(_request("", "Check security.")) is None
    small = _request("PR #7: retries bounded.", "Check security.")
    assert shared_prefix(small) is not None
    assert cacheable_prefix_digest(small) is None, "under the API's minimum nothing is cached"
    assert cacheable_prefix_digest(small, min_tokens=1) is not None
    assert MIN_CACHEABLE_PREFIX_TOKENS == 1_024
