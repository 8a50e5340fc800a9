"""A finding's identity across runs, and the hidden marker that carries it in a comment.

Line numbers move as commits land, so a finding is identified by its file,
its category and the text of the line it points at. Each posted inline
comment carries that fingerprint in an HTML comment; the next run reads the
PR's review comments back, so it neither repeats a finding already posted nor
reopens one whose thread a person resolved.
"""

from __future__ import annotations

import hashlib
import re

from prflow.review.models import FindingCategory

FINGERPRINT_CHARS = 16
_MARKER = "<!-- prflow:finding {} -->"
_TRAILING_MARKER = re.compile(r"<!-- prflow:finding ([0-9a-f]{16}) -->\s*\Z")
_WORDS = re.compile(r"[a-z0-9_]+")


def finding_fingerprint(path: str, category: FindingCategory, anchor: str, title: str) -> str:
    """Stable across commits that move the line; ``title`` words stand in when the line
    text is unknown (a finding about a whole file)."""
    basis = anchor.strip() or " ".join(sorted(set(_WORDS.findall(title.lower()))))
    digest = hashlib.sha256(f"{path}\0{category.value}\0{basis}".encode()).hexdigest()
    return digest[:FINGERPRINT_CHARS]


def fingerprint_marker(fingerprint: str) -> str:
    return _MARKER.format(fingerprint)


def fingerprint_of_comment(body: str | None) -> str | None:
    """The fingerprint a prflow comment carries on its last line, or None.

    Only the trailing marker counts: a marker quoted inside the comment (in a
    suggested change, say) must not make a run skip some other finding.
    """
    match = _TRAILING_MARKER.search(body or "")
    return match.group(1) if match else None
