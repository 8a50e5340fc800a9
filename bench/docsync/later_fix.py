"""The release in which upstream had time to fix its docs: the last of the head's line within
a year of the head.

Upstream does not always fix every doc in the release that broke it: cmd2 2.0.0 kept examples
calling ``cmd2.Settable(...)`` the old way, and a truth read from that release alone calls a
finder that flags them wrong. When upstream edits such a line in a later release of the same
major line (the bug reports come in, the docs catch up), the edit is still upstream's own
judgement, independent of prflow, so the use truth also reads base -> this later release.
The window is bounded so that a later rewrite for other reasons counts rarely: the head's
major line only, uploaded within :data:`WINDOW_DAYS` of the head, before the registry's
cutoff; its sdist comes straight from PyPI (no pip, no metadata build).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from packaging.version import Version

from bench.eval_sets.registry import RegistryError, Release, download_sdist, releases

WINDOW_DAYS = 365


def _day(uploaded: str) -> datetime:
    return datetime.fromisoformat(uploaded.replace("Z", "+00:00"))


def later_release(history: list[Release], head: str) -> str | None:
    """The last release of ``head``'s major line uploaded within :data:`WINDOW_DAYS` after it,
    with an sdist; None when there is none beyond ``head``."""
    by_version = {r.version: r for r in history}
    if head not in by_version:
        return None
    start = _day(by_version[head].uploaded)
    line = Version(head).release[0]
    later = [
        r
        for r in history
        if r.has_sdist
        and Version(r.version) > Version(head)
        and Version(r.version).release[0] == line
        and _day(r.uploaded) - start <= timedelta(days=WINDOW_DAYS)
    ]
    return max(later, key=lambda r: Version(r.version)).version if later else None


def later_sdist(package: str, head: str, downloads: Path) -> tuple[str, Path] | None:
    """The later release's version and sdist, None when there is none (or it cannot be
    fetched: the truth then reads the head alone)."""
    try:
        version = later_release(releases("pypi", package), head)
        if version is None:
            return None
        archive = download_sdist(package, version, downloads)
    except (RegistryError, OSError):
        return None
    return None if archive is None else (version, archive)
