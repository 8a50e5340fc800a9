"""One exclusive lock between processes on this machine, held on a lock file.

Several processes (CLI commands, the warm worker, test workers) share caches on
disk: git mirrors, workspaces, test environments, a SQLite ledger's migrations.
Each guards its critical section the same way, so the rule lives here once: an
advisory ``flock`` on a side file the holders agree on, released when the block
ends or the process dies (the kernel drops it with the file descriptor).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    fcntl = None  # type: ignore[assignment]

SUPPORTED = fcntl is not None
"""Whether this platform has ``flock``; callers that may run without a lock check it."""


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (created, with its folder) for the block.

    Blocks until no other process holds it. The file is only a rendezvous: it stays
    empty and is never removed, since removing it would let two holders lock two
    different files of one name.
    """
    if fcntl is None:  # pragma: no cover - exercised on Windows only
        raise OSError("exclusive file locks need POSIX flock, which this platform lacks")
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
