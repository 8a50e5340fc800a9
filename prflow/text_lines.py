"""Lines as git counts them: the one way prflow numbers the lines of a file or a diff.

``str.splitlines`` also splits on form feed, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``,
U+2028 and U+2029, so one form feed (common in older C and Python sources) would
put every later line number out of step with git, GitHub and editors.
"""

from __future__ import annotations


def split_lines(text: str) -> list[str]:
    """``text`` split on ``\\n`` only, the CR of a CRLF dropped, no empty last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]
