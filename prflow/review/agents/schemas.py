"""JSON-schema pieces several agents' terminal tools share."""

from __future__ import annotations

from typing import Any

_PATHS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

DIMENSION_ITEM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "prompt": {"type": "string"},
        "target_files": _PATHS,
        "context_files": _PATHS,
    },
    "required": ["name", "prompt", "target_files"],
}
"""A review dimension to run: the planner's and the coverage gate's."""

QUESTION_ITEM: dict[str, Any] = {
    "type": "object",
    "description": "Asked once per review: the same question with the same files is not run "
    "again, and none starts once the review's reviewers (by depth) are all taken.",
    "properties": {"question": {"type": "string"}, "files": _PATHS},
    "required": ["question", "files"],
}
"""A question for another reviewer to answer: investigations and deep dives."""
