"""Whether a process we did not start (a handed-over server, a warm worker) still runs."""

from __future__ import annotations

import os
from pathlib import Path


def is_running(pid: int) -> bool:
    """``pid`` is alive, and not a zombie left for a parent that no longer reaps it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs: the signal check is all there is
    return stat.rpartition(")")[2].split()[0] != "Z"
