"""Find every payload in a workflow history and measure it."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

PAYLOAD_LIMIT_BYTES = 256 * 1024


def payload_sizes(node: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """(where, decoded size) for each payload in a history's JSON form."""
    if isinstance(node, dict):
        if "data" in node and "metadata" in node and isinstance(node["data"], str):
            yield path, len(base64.b64decode(node["data"]))
            return
        for key, value in node.items():
            yield from payload_sizes(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from payload_sizes(value, f"{path}[{index}]")


def largest_payload(history_json: dict[str, Any]) -> tuple[str, int]:
    return max(payload_sizes(history_json), key=lambda item: item[1], default=("", 0))
