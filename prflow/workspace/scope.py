"""Which paths an agent may edit, from glob patterns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase


def may_edit(patterns: Sequence[str]) -> Callable[[str], bool]:
    """A predicate: the path equals a pattern, lies under a directory pattern, or matches a glob.

    ``*`` also matches ``/`` (fnmatch), so ``storage/*`` covers the whole tree below
    ``storage``. No patterns: every path may be edited.
    """
    cleaned = [p.strip().removeprefix("./") for p in patterns if p.strip()]
    if not cleaned:
        return lambda _path: True

    def check(path: str) -> bool:
        return any(
            path == p or path.startswith(p.rstrip("/") + "/") or fnmatchcase(path, p)
            for p in cleaned
        )

    return check


def scope_hint(patterns: Sequence[str]) -> str:
    """The sentence an edit outside the scope is answered with."""
    if not patterns:
        return ""
    return "You may edit only: " + ", ".join(patterns) + "."
