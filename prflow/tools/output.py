"""Bounded tool output: line windows with an explicit truncation marker, and list pages.

A model cannot tell a cut-off answer from a complete one unless we say so, so
every shortened output ends with a marker that names the call to make next.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

T = TypeVar("T")

MAX_LINE_CHARS = 2_000
"""Longer lines (minified code, data blobs) are cut so one line cannot fill a page."""


class ToolOutput(BaseModel):
    """A tool's structured result; ``to_text`` is what the model reads (compact JSON by default)."""

    def to_text(self) -> str:
        return self.model_dump_json(exclude_none=True)


def truncation_marker(remaining: int, next_offset: int, offset_name: str = "offset") -> str:
    """The line appended to output that stops early."""
    noun = "line" if remaining == 1 else "lines"
    return (
        f"[... truncated: {remaining} more {noun}; call again with {offset_name}={next_offset} ...]"
    )


class LineWindow(BaseModel):
    """A slice of a text's lines, ready to show."""

    lines: list[str]
    start: int = Field(description="0-based index of the first line shown")
    total_lines: int
    next_offset: int | None = Field(description="Where the next window starts; None at the end")

    @property
    def remaining(self) -> int:
        return self.total_lines - self.start - len(self.lines)


def window_lines(lines: Sequence[str], offset: int, limit: int, max_chars: int) -> LineWindow:
    """Up to ``limit`` lines from ``offset`` whose total size stays under ``max_chars``.

    At least one line is always returned (when any remain) so paging makes progress.
    """
    start = max(offset, 0)
    shown: list[str] = []
    size = 0
    for line in lines[start : start + max(limit, 1)]:
        clipped = clip_line(line)
        if shown and size + len(clipped) + 1 > max_chars:
            break
        shown.append(clipped)
        size += len(clipped) + 1
    end = start + len(shown)
    return LineWindow(
        lines=shown,
        start=start,
        total_lines=len(lines),
        next_offset=end if end < len(lines) else None,
    )


def clip_line(line: str) -> str:
    """Cut an overlong line, saying how much was dropped."""
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}[... {len(line) - MAX_LINE_CHARS} more characters]"


class Page(BaseModel, Generic[T]):
    """One page of a list result."""

    items: list[T]
    offset: int
    limit: int
    total: int
    has_next: bool
    next_offset: int | None = None


def paginate(items: Sequence[T], offset: int, limit: int) -> Page[T]:
    """The ``limit`` items starting at ``offset``, with enough to ask for the next page."""
    start = max(offset, 0)
    size = max(limit, 1)
    chosen = list(items[start : start + size])
    end = start + len(chosen)
    has_next = end < len(items)
    return Page[T](
        items=chosen,
        offset=start,
        limit=size,
        total=len(items),
        has_next=has_next,
        next_offset=end if has_next else None,
    )


def shown_path(path: str) -> str:
    """A path on a line of its own: as is, or JSON-quoted when it would not read back
    (control characters, surrounding spaces, or a leading quote)."""
    plain = path.isprintable() and path == path.strip() and not path.startswith('"')
    return path if plain else json.dumps(path, ensure_ascii=False)


def page_footer(page: Page[T], noun: str) -> str:
    """The line after a page: where it sits in the whole list and how to get the next one."""
    if not page.items:
        return f"no {noun}" if page.total == 0 else f"no {noun} at offset {page.offset}"
    last = page.offset + len(page.items)
    where = f"{noun} {page.offset + 1}-{last} of {page.total}"
    if page.next_offset is None:
        return where
    return f"{where}; more: call again with offset={page.next_offset}"
