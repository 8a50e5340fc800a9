"""Git-style unified diffs of one file, computed in pure Python, and the record of each edit.

Every edit the agent makes is kept as a :class:`PatchRecord` with its reason,
so a reviewer sees why each hunk exists. Lines are split on ``"\\n"`` only (as
git counts them), so a form feed or U+2028 inside a line never moves a hunk.
"""

from __future__ import annotations

import difflib

from pydantic import BaseModel, Field

CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file"


class PatchRecord(BaseModel):
    """One applied edit as a diff of its file, with the reason it was made."""

    path: str = Field(description="The file's path after the edit")
    old_path: str | None = Field(
        default=None, description="The path before a move; None when not moved"
    )
    diff: str = Field(description="git-style unified diff (a/ b/ prefixes)")
    reason: str
    edit_index: int = Field(description="Position of the edit in its batch (0-based)")
    actor: str = Field(default="agent", description="Who made the edit (agent name, or 'user')")


def split_keep_ends(text: str) -> list[str]:
    """Lines with their ``\\n`` kept, split on ``\\n`` only (the last may lack one)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _range(start: int, count: int) -> str:
    # Unified-diff ranges are 1-based; an empty range names the line before it.
    if count == 0:
        return f"{start},0"
    return f"{start + 1}" if count == 1 else f"{start + 1},{count}"


def _emit(prefix: str, line: str, out: list[str]) -> None:
    if line.endswith("\n"):
        out.append(prefix + line)
    else:
        out.append(prefix + line + "\n")
        out.append(NO_NEWLINE + "\n")


def hunks(old: str, new: str, context: int = CONTEXT_LINES) -> str:
    """The ``@@`` hunks turning ``old`` into ``new`` (empty when they are equal)."""
    a, b = split_keep_ends(old), split_keep_ends(new)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in a[a1:a2]:
                    _emit(" ", line, out)
                continue
            for line in a[a1:a2]:
                _emit("-", line, out)
            for line in b[b1:b2]:
                _emit("+", line, out)
    return "".join(out)


def file_diff(old_path: str | None, new_path: str | None, old: str | None, new: str | None) -> str:
    """A git-style diff of one file: modified, created (old None), deleted (new None) or moved."""
    a_name = old_path if old_path is not None else new_path
    b_name = new_path if new_path is not None else old_path
    assert a_name is not None and b_name is not None
    header = [f"diff --git a/{a_name} b/{b_name}\n"]
    if old is None:
        header.append("new file mode 100644\n")
    elif new is None:
        header.append("deleted file mode 100644\n")
    elif a_name != b_name:
        header.extend([f"rename from {a_name}\n", f"rename to {b_name}\n"])
    body = hunks(old or "", new or "")
    if body:
        header.append("--- /dev/null\n" if old is None else f"--- a/{a_name}\n")
        header.append("+++ /dev/null\n" if new is None else f"+++ b/{b_name}\n")
    return "".join(header) + body
