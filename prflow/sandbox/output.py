"""Bounded capture of a command's output: the first quarter and the last three quarters kept.

A test that prints 10 GB must neither fill the worker's disk nor its memory,
yet the summary line a runner prints last is what a reader wants. So the
start is kept up to a quarter of the bound, the end in a ring of the rest, and
the text says how much was left out.
"""

from __future__ import annotations

from collections import deque


class BoundedOutput:
    """Bytes written in chunks; at most ``limit`` of them kept."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 4
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.total = 0

    def write(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail.append(chunk)
        self.tail_size += len(chunk)
        while self.tail_size - len(self.tail[0]) >= self.tail_limit:
            self.tail_size -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)
        cut = max(0, len(tail) - self.tail_limit)
        tail = tail[cut:]
        kept = len(self.head) + len(tail)
        head = self.head.decode("utf-8", errors="replace")
        rest = tail.decode("utf-8", errors="replace")
        if kept < self.total:
            left = self.total - kept
            return f"{head}\n[... prflow: {left:,} bytes of output left out here ...]\n{rest}"
        return head + rest
