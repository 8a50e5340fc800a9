"""Model-written Markdown that cannot become active content once GitHub renders it.

A PR can steer what a model writes, so its text may carry raw HTML
(``<img src=x onerror=…>``, ``<details open>``, ``<a href=javascript:…>``) or
links whose target runs code or loads data (``[x](javascript:…)``,
``![x](data:…)``, a reference definition ``[r]: vbscript:…``). Outside code,
``<`` is written as ``&lt;`` (no tag, no autolink can open) and a link whose
target has a scheme other than http(s) keeps its text and loses its target.
Code spans and fenced blocks are left as written: they render as text.
"""

from __future__ import annotations

import html
import re

_CODE = re.compile(
    r"(^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\2[`~]*[ \t]*$|\Z)|(`+).+?\3)", re.S | re.M
)
# [text](target ...) and ![alt](target ...): the target up to whitespace or ")".
_INLINE_LINK = re.compile(
    r"!?\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^>\n]*>|(?:[^\s()]|\([^\s()]*\))*)([^)\n]*)\)"
)
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^>\n]*>|\S+)(.*)$", re.M)
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")


def safe_target(target: str) -> bool:
    """True for http(s), relative and anchor targets; false for any other scheme.

    Entities and control characters are resolved first (``javascript&#58;`` and
    ``java\\tscript:`` name the same scheme to a browser).
    """
    plain = _CONTROL.sub("", html.unescape(target.strip("<>"))).lower()
    scheme = _SCHEME.match(plain)
    return scheme is None or scheme.group(1) in ("http", "https")


def drop_unsafe_links(text: str) -> str:
    """``text`` with every link whose target is not http(s) (or relative) reduced to its text."""

    def link(match: re.Match[str]) -> str:
        return match.group(0) if safe_target(match.group(2)) else match.group(1)

    def reference(match: re.Match[str]) -> str:
        return match.group(0) if safe_target(match.group(2)) else match.group(1).rstrip() + " #"

    return _REFERENCE.sub(reference, _INLINE_LINK.sub(link, text))


def _prose(text: str) -> str:
    return drop_unsafe_links(text).replace("<", "&lt;")


def inactive(text: str) -> str:
    """``text`` with raw HTML escaped and non-http(s) link targets dropped, code untouched."""
    out: list[str] = []
    last = 0
    for match in _CODE.finditer(text):
        out.append(_prose(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_prose(text[last:]))
    return "".join(out)
