"""Workspace tool calls that turn a file's text into a target text, as a careful model would.

Each changed block of lines becomes one ``edit_file`` entry whose ``old_string`` is the
block widened by context lines until it is unique in the file as the earlier entries of
the batch left it (the exact-unique edit semantics apply entries in order). A file that
appears is created, one that disappears is deleted. Used by the scripted models of the
refactor tests and benches: a model that knows the target edits.
"""

from __future__ import annotations

import difflib

from tests.support.scripted_anthropic import ToolUse


def edit_entries(old: str, new: str, reason: str) -> list[dict[str, str]]:
    """Edits turning ``old`` into ``new``, each quoting a window unique at the time."""
    current = old.splitlines(keepends=True)
    target = new.splitlines(keepends=True)
    edits: list[dict[str, str]] = []
    shift = 0
    matcher = difflib.SequenceMatcher(None, current, target, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = i1 + shift, i2 + shift
        replacement = target[j1:j2]
        text = "".join(current)
        for reach in range(len(current) + 1):
            lo, hi = max(0, start - reach), min(len(current), end + reach)
            window = "".join(current[lo:hi])
            at = len("".join(current[:lo]))
            if window and _only_at(text, window, at):
                break
        before, after = current[lo:start], current[end:hi]
        edits.append(
            {
                "old_string": window,
                "new_string": "".join([*before, *replacement, *after]),
                "reason": reason,
            }
        )
        current[start:end] = replacement
        shift += len(replacement) - (i2 - i1)
    return edits


def _only_at(text: str, window: str, at: int) -> bool:
    """``window`` occurs in ``text`` once, overlaps counted, and there at ``at``."""
    return text.find(window) == at and text.find(window, at + 1) == -1


def file_change(path: str, old: str | None, new: str | None, reason: str) -> ToolUse | None:
    """The one tool call that takes ``path`` from ``old`` to ``new`` (None: absent)."""
    if old == new:
        return None
    if old is None:
        return ToolUse("create_file", {"path": path, "content": new or "", "reason": reason})
    if new is None:
        return ToolUse("delete_file", {"path": path, "reason": reason})
    return ToolUse("edit_file", {"path": path, "edits": edit_entries(old, new, reason)})
