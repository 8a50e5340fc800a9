"""Model-written text made safe to post: it can neither hide markers nor ping people.

A PR can steer what a model writes. Text it wrote must not forge prflow's
hidden markers (which decide what the next run skips), open HTML comments
that hide the rest of a comment, carry raw HTML or script links, or
@-mention people and teams.
"""

from __future__ import annotations

import re

from prflow.render.active_content import inactive

_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9])")
ZERO_WIDTH_SPACE = "\u200b"

SEVERITY_MARK = {
    "critical": "🔴",
    "important": "🟠",
    "suggestion": "🔵",
    "nitpick": "⚪",
}


def inert(text: str) -> str:
    """``text`` with raw HTML (comments included) escaped, non-http(s) link targets dropped
    and @-mentions defused; code spans and fences are left as written."""
    return _MENTION.sub("@" + ZERO_WIDTH_SPACE, inactive(text))


def fenced(code: str, info: str = "") -> str:
    """A fenced code block that ``code`` cannot close early, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{code}\n{fence}"


def code_span(text: str) -> str:
    """Inline code for a path or symbol, safe for backticks in it."""
    ticks = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
