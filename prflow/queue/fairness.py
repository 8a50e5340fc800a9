"""Task-queue fairness by repository.

Temporal (server 1.29+ with ``matching.enableFairness``, or Temporal Cloud with
fairness on) dispatches backlogged tasks across *fairness keys* in proportion
to their weights. Every PR workflow is started with its repository as the key,
and its job children and their activities inherit it, so a repository that
floods the queue with a hundred PRs gets the same share of workers as one
with a single PR. Without fairness enabled the key is ignored and the org
gate's per-repository turns (:mod:`prflow.queue.gate`) still apply.
"""

from __future__ import annotations

import hashlib

from temporalio.common import Priority

MAX_KEY_BYTES = 64  # the server's limit


def fairness_key(repo: str) -> str:
    """``owner/name``, or a stable digest-suffixed prefix when that exceeds 64 bytes."""
    raw = repo.encode()
    if len(raw) <= MAX_KEY_BYTES:
        return repo
    digest = hashlib.sha1(raw).hexdigest()[:12]
    return raw[: MAX_KEY_BYTES - 13].decode(errors="ignore") + "~" + digest


def repo_priority(repo: str) -> Priority:
    return Priority(fairness_key=fairness_key(repo))
