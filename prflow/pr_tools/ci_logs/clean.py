"""Undo what GitHub Actions and terminals add to a test runner's output.

Actions prefixes every log line with an ISO timestamp and wraps steps in
``##[group]`` markers; runners colour their output with ANSI escapes even in
CI. Parsers want the text the runner meant to print.
"""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_TIMESTAMP = re.compile(r"^\ufeff?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?")
_COMMAND = re.compile(r"^##\[(?:group|endgroup|error|warning|notice|debug|command)\]")


def clean_log(text: str) -> list[str]:
    """The log's lines without timestamps, colour codes, workflow commands or CRs."""
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = _ANSI.sub("", _TIMESTAMP.sub("", raw)).rstrip("\r")
        lines.append(_COMMAND.sub("", line))
    return lines
