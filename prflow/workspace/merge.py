"""Join the workspaces of tasks that ran side by side on disjoint files.

Concurrent child agents each start from the run's workspace and each carry
their own reference; when they finish, the run keeps the union of their
changes. A path two tasks changed differently is a conflict: the merge is
refused (nothing is combined) so the workflow can rerun one task on top of the
other instead of silently dropping an edit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

_MISSING = object()


def changed_paths(base: Mapping[str, str | None], branch: Mapping[str, str | None]) -> set[str]:
    """Paths whose entry in ``branch`` differs from ``base`` (added, changed or dropped)."""
    return {
        path
        for path in set(base) | set(branch)
        if base.get(path, _MISSING) != branch.get(path, _MISSING)  # type: ignore[comparison-overlap]
    }


def merge_states(
    base: Mapping[str, str | None], branches: Sequence[Mapping[str, str | None]]
) -> tuple[dict[str, str | None], list[str]]:
    """The union of every branch's changes over ``base``, and the conflicting paths.

    An entry a branch dropped (a file reverted to the base commit) is dropped in the result.
    """
    merged: dict[str, str | None] = dict(base)
    owner: dict[str, object] = {}
    conflicts: set[str] = set()
    for branch in branches:
        for path in changed_paths(base, branch):
            value = branch.get(path, _MISSING)
            if path in owner and owner[path] != value:
                conflicts.add(path)
                continue
            owner[path] = value
            if value is _MISSING:
                merged.pop(path, None)
            else:
                merged[path] = value  # type: ignore[assignment]
    return dict(sorted(merged.items())), sorted(conflicts)
