"""Where prflow keeps state on this machine: light enough for the command launcher."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """Directory for durable local state (SQLite ledger, dev-server history)."""
    return Path(os.environ.get("PRFLOW_DATA_DIR") or platformdirs.user_data_dir("prflow"))


def cache_dir() -> Path:
    """Directory for rebuildable state (bare mirrors, commit snapshots)."""
    return Path(os.environ.get("PRFLOW_CACHE_DIR") or platformdirs.user_cache_dir("prflow"))
