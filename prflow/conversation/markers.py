"""Hidden markers in prflow's thread replies: what makes posting them idempotent.

A reply carries the id of the comment it answers; a resolution note carries
the thread's root comment id and the head that fixed the finding. Before
posting, an activity looks for its own comment carrying the marker, so a worker
killed after GitHub took the post (and before Temporal heard of it) never posts
twice.
"""

from __future__ import annotations

import re

_REPLY = "<!-- prflow:reply {} -->"
_ADDRESSED = "<!-- prflow:addressed {} at {} -->"
_FIX = "<!-- prflow:fix {} -->"
_ANY = re.compile(r"<!-- prflow:(reply \d+|addressed \d+ at [0-9a-f]+|fix \d+) -->")


def reply_marker(comment_id: int) -> str:
    return _REPLY.format(comment_id)


def fix_marker(comment_id: int) -> str:
    """The mark of prflow's one answer to a ``/prflow fix`` (the link, the reason or the
    refusal): a retried post, or a redelivered command, finds it and does nothing twice."""
    return _FIX.format(comment_id)


def fix_trailer(comment_id: int) -> str:
    """The commit-message line naming the command a pushed fix answers (found on a retry)."""
    return f"prflow-fix: comment {comment_id}"


def addressed_marker(root_comment_id: int, head_sha: str) -> str:
    """The mark of an "addressed in <sha>" note: the thread and the head that fixed it."""
    return _ADDRESSED.format(root_comment_id, head_sha[:12])


def addressed_prefix(root_comment_id: int) -> str:
    """What every "addressed" note of the thread carries, whatever the head."""
    return f"<!-- prflow:addressed {root_comment_id} at "


def carries(body: str | None, marker: str) -> bool:
    return marker in (body or "")


def is_prflow_reply(body: str | None) -> bool:
    """A comment prflow wrote in the conversation (never answered, never a rebuttal)."""
    return _ANY.search(body or "") is not None


_FOUND_BY = re.compile(r"<sub>Found by (.+?)(?: · |</sub>)")
_FINDING_MARKER = re.compile(r"\n?<!-- prflow:finding [0-9a-f]{16} -->\s*\Z")


def dimension_of_finding(body: str | None) -> str:
    """The review dimension named in a finding comment's credit line ("Found by …")."""
    match = _FOUND_BY.search(body or "")
    return match.group(1).strip() if match else ""


def finding_text(body: str | None) -> str:
    """A finding comment without its hidden fingerprint marker."""
    return _FINDING_MARKER.sub("", body or "").strip()
