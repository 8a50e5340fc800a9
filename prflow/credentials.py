"""Refuse repository locations that carry a secret, and scrub secrets out of text.

A password or token written into a clone URL would travel into workflow
history, activity inputs, search attributes and error messages, all of which
outlive the run. Git can read a secret from several spellings of a location,
so each is recognised here:

- ``scheme://user:password@host/...`` in any scheme (https, ssh, git, ftp, file ...);
- ``https://TOKEN@host/...``: a user name alone is how tokens are usually
  pasted into http(s) and ftp(s) URLs (``ssh://git@host`` stays allowed, there
  the user name is an account, never a secret);
- ``user:password@host:path``: the scp-like form has no password field, but
  people write one anyway and git would hand it to ssh as part of the path;
- ``?access_token=...`` and similar query parameters of an http(s) URL.

Refusals show the location with every secret replaced by ``***``.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from prflow.errors import InvalidValue

REDACTED = "***"

_SCHEME_URL = re.compile(
    r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<authority>[^/?#]*)(?P<rest>.*)$", re.DOTALL
)
# user:password@host:path, with no slash before the first ':' (that would make it a path).
_SCP_WITH_PASSWORD = re.compile(r"^(?P<user>[^/@:\s]+):(?P<password>[^/@\s]*)@(?P<rest>[^/]+:.*)$")
_TOKEN_USER_SCHEMES = frozenset({"http", "https", "ftp", "ftps"})
# Query parameter names that hold secrets: token, access_token, private-token, api_key, sig ...
_SECRET_PARAMETER = re.compile(
    r"(?:^|[_.-])(?:token|passw(?:or)?d|pwd|secret|key|apikey|auth|sig|signature|credentials?)$",
    re.IGNORECASE,
)
# Inside free text (git's stderr, exception messages): URLs, then scp-like passwords.
_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_SCP_PASSWORD_IN_TEXT = re.compile(r"(?P<user>\b[\w.+-]+):[^\s/@:]+@(?P<host>[\w.-]+:)")


class CredentialsInLocation(InvalidValue):
    """A repository location carries a password or token; the message shows it redacted."""


def redacted_location(location: str) -> str | None:
    """``location`` with its secrets replaced by ``***``; None when it carries none."""
    text = location.strip()
    url = _SCHEME_URL.match(text)
    if url is not None:
        return _redacted_url(url["scheme"].lower(), url["authority"], url["rest"], url[0])
    scp = _SCP_WITH_PASSWORD.match(text)
    if scp is not None:
        return f"{scp['user']}:{REDACTED}@{scp['rest']}"
    return None


def _redacted_url(scheme: str, authority: str, rest: str, whole: str) -> str | None:
    userinfo, at, host = authority.rpartition("@")
    found = False
    if at and (":" in userinfo or scheme in _TOKEN_USER_SCHEMES):
        authority, found = f"{REDACTED}@{host}", True
    if scheme in ("http", "https") and "?" in rest:
        path, _, query = rest.partition("?")
        query, hash_mark, fragment = query.partition("#")
        cleaned = "&".join(_redacted_parameter(item) for item in query.split("&"))
        if cleaned != query:
            rest, found = f"{path}?{cleaned}{hash_mark}{fragment}", True
    if not found:
        return None
    prefix = whole[: len(scheme)]
    return f"{prefix}://{authority}{rest}"


def _redacted_parameter(item: str) -> str:
    name, equals, value = item.partition("=")
    if equals and value and _SECRET_PARAMETER.search(name):
        return f"{name}={REDACTED}"
    return item


def refuse_credentials(*locations: str | None) -> None:
    """Raise :class:`CredentialsInLocation` if any location carries a secret.

    Meant to run before anything else touches the location: before a workflow
    starts, before git runs, before the location appears in any message.
    """
    for location in locations:
        if location is None:
            continue
        shown = redacted_location(location)
        if shown is not None:
            raise CredentialsInLocation(
                f"{shown} carries credentials (a password or token), which would be stored "
                "in workflow history; remove them from the location and let git supply them "
                "on the worker (a credential helper, GIT_ASKPASS or an SSH key)"
            )


def _without_credentials(location: str) -> str:
    refuse_credentials(location)
    return location


SafeLocation = Annotated[str, AfterValidator(_without_credentials)]
"""A repository location field that refuses secrets, so every entry point (CLI, webhook,
MCP, a worker decoding an activity input) applies the same rule. Models using it should
set ``hide_input_in_errors`` so a validation error does not echo the refused value."""


def redact(text: str) -> str:
    """``text`` with the secret of every location in it replaced by ``***`` (as refusals show)."""
    text = _URL_IN_TEXT.sub(lambda m: redacted_location(m[0]) or m[0], text)
    return _SCP_PASSWORD_IN_TEXT.sub(lambda m: f"{m['user']}:{REDACTED}@{m['host']}", text)
