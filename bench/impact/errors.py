"""The one error the benchmark reports as a single line instead of a traceback."""

from __future__ import annotations


class BenchError(Exception):
    """An input could not be fetched or a tool failed; the message says which and why."""
