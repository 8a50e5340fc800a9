"""Where prflow keeps state on this machine: light enough for the command launcher.

``platformdirs`` is imported only when a directory is not set in the environment: the
launcher names its fork server by the data directory on every command, and the import
(with what it pulls in) is about a quarter of the launcher's own start-up.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """Directory for durable local state (SQLite ledger, dev-server history)."""
    chosen = os.environ.get("PRFLOW_DATA_DIR")
    if chosen:
        return Path(chosen)
    import platformdirs

    return Path(platformdirs.user_data_dir("prflow"))


def cache_dir() -> Path:
    """Directory for rebuildable state (bare mirrors, commit snapshots)."""
    chosen = os.environ.get("PRFLOW_CACHE_DIR")
    if chosen:
        return Path(chosen)
    import platformdirs

    return Path(platformdirs.user_cache_dir("prflow"))
