"""GitHub's webhook signature: ``X-Hub-Signature-256: sha256=<hex HMAC of the raw body>``.

The receiver must check it on the exact bytes it received, before parsing,
and compare in constant time so the comparison leaks nothing about the secret.
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Hub-Signature-256"
PREFIX = "sha256="


class SignatureError(Exception):
    """A delivery that must be refused; the message says why (never the expected value)."""


def sign(secret: str, body: bytes) -> str:
    """The header value GitHub sends for ``body`` (used by tests, the bench and redelivery)."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return PREFIX + digest


def verify_signature(secret: str, body: bytes, header: str | None) -> None:
    """Raise :class:`SignatureError` unless ``header`` is GitHub's signature of ``body``."""
    if not secret:
        raise SignatureError("the receiver has no webhook secret configured")
    if not header:
        raise SignatureError(f"missing {SIGNATURE_HEADER} header")
    if not header.startswith(PREFIX):
        raise SignatureError(f"{SIGNATURE_HEADER} must start with {PREFIX!r}")
    if not hmac.compare_digest(sign(secret, body).encode(), header.strip().encode()):
        raise SignatureError(f"{SIGNATURE_HEADER} does not match the body")
