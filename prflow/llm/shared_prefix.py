"""The prompt prefix that agents of one run share, and whether it is worth waiting for.

Agents of one kind (the reviewers of a run) open their first message with the
same shared-context block, marked for the prompt cache (see
:mod:`prflow.llm.cache_control`), so tools → system → shared context should be
written to the cache once and read by every other agent. The API makes a
written prefix readable only once the response that wrote it begins, so
agents started together would each write it (at 1.25× the input price)
instead of reading it (0.1×). The ``llm_call`` activity therefore lets the
first request carrying a prefix send while the others wait for its answer;
this module names the prefix (its digest) and says whether it is big enough
to be cached at all.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from prflow.llm.cache_control import has_shared_prefix
from prflow.llm.request_identity import without_cache_marks
from prflow.llm.token_estimate import estimate_prompt_tokens

MIN_CACHEABLE_PREFIX_TOKENS = 1_024
"""The API caches no prefix shorter than this (1,024 tokens for Sonnet and Opus models;
Haiku's minimum is higher, so waiting there for a prefix it does not cache costs latency
only). Below it nobody writes the prefix, so waiting for the first request buys nothing."""


def shared_prefix(request: dict[str, Any]) -> dict[str, Any] | None:
    """Model, tools, system and the shared-context block of ``request`` (cache marks aside);
    None when its first message opens with no shared context."""
    messages = request.get("messages") or []
    if not has_shared_prefix(messages):
        return None
    prefix: dict[str, Any] = without_cache_marks(
        {
            "model": request.get("model"),
            "tools": request.get("tools") or [],
            "system": request.get("system") or [],
            "shared": messages[0]["content"][0],
        }
    )
    return prefix


def prefix_digest(prefix: dict[str, Any]) -> str:
    """SHA-256 hex digest of a shared prefix, never equal to a request digest (its own
    namespace: a request digest hashes the request's parameters, this one a wrapper)."""
    encoded = json.dumps(
        {"shared_prefix": prefix}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def prefix_tokens(prefix: dict[str, Any]) -> int:
    """The estimated prompt tokens of a shared prefix (errs high, as budget checks do)."""
    system_chars = sum(len(str(block.get("text", ""))) for block in prefix["system"])
    tools_chars = sum(len(json.dumps(tool)) for tool in prefix["tools"])
    shared_chars = len(str(prefix["shared"].get("text", "")))
    return estimate_prompt_tokens(system_chars, tools_chars, len(prefix["tools"]), shared_chars)


def cacheable_prefix_digest(
    request: dict[str, Any], min_tokens: int = MIN_CACHEABLE_PREFIX_TOKENS
) -> str | None:
    """The digest of ``request``'s shared prefix when it is big enough to be cached, else None."""
    prefix = shared_prefix(request)
    if prefix is None or prefix_tokens(prefix) < min_tokens:
        return None
    return prefix_digest(prefix)
