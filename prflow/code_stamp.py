"""A stamp of prflow's installed code, cheap enough for every command to compute.

Processes that outlive a command (the warm worker, the command fork server) loaded
the code as it was when they started; a stamp that differs means an upgrade or an
edit of an editable install happened since, and what they hold is stale. Standard
library only: the command launcher computes nothing heavier before it forks.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

CODE_PACKAGES = ("prflow", "workflows", "activities", "worker")


def code_root() -> Path:
    """The directory holding prflow's packages (the source tree of an editable install)."""
    return Path(__file__).resolve().parent.parent


def code_stamp() -> str:
    """Changes whenever prflow's code does (an upgrade or an edit to an editable install)."""
    from prflow import __version__

    digest = hashlib.sha256(__version__.encode())
    root = code_root()
    for package in CODE_PACKAGES:
        for path, mtime_ns in sorted(_sources(str(root / package))):
            digest.update(f"{path}:{mtime_ns}".encode())
    return digest.hexdigest()


def _sources(directory: str) -> Iterator[tuple[str, int]]:
    """Every ``.py`` file under ``directory`` with its mtime (``os.scandir``: every command
    computes the stamp, and this is several times faster than ``Path.rglob`` plus ``stat``)."""
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    yield from _sources(entry.path)
                elif entry.name.endswith(".py"):
                    yield entry.path, entry.stat().st_mtime_ns
