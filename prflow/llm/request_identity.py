"""What makes two Messages API requests the same question.

Two requests ask the same question when model, system prompt, tools and
messages are equal; where the cache breakpoints sit and how many output tokens
are allowed do not change the question. The digest is what prflow keys a kept
answer by, so a retried attempt or another agent of the run that asks the same
thing reuses the answer instead of paying for it again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

IGNORED_PARAMETERS = frozenset({"max_tokens"})


def request_digest(request: dict[str, Any]) -> str:
    """SHA-256 hex digest of ``request`` without cache marks and ``max_tokens``."""
    question = {
        name: without_cache_marks(value)
        for name, value in request.items()
        if name not in IGNORED_PARAMETERS
    }
    encoded = json.dumps(question, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def attempt_scope(workflow_id: str, activity_id: str) -> str:
    """The answer scope every attempt of one activity shares."""
    return f"activity:{workflow_id}#{activity_id}"


def run_scope(workflow_id: str, run_id: str) -> str:
    """The answer scope every agent of one run (the root workflow's run) shares."""
    return f"run:{workflow_id}/{run_id}"


def without_cache_marks(value: Any) -> Any:
    """``value`` with every ``cache_control`` key dropped, at any depth."""
    if isinstance(value, dict):
        return {k: without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_marks(item) for item in value]
    return value
