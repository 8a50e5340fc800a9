"""The one exclusive file lock: another process waits while it is held, not after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prflow.file_lock import exclusive_lock

_TRY_LOCK = """
import fcntl, sys
with open(sys.argv[1], "a") as handle:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("held")
    else:
        print("free")
"""


def _seen_by_another_process(lock_file: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _TRY_LOCK, str(lock_file)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_another_process_cannot_take_the_lock_until_the_block_ends(tmp_path: Path) -> None:
    lock_file = tmp_path / "not" / "yet" / "there.lock"
    with exclusive_lock(lock_file):
        assert lock_file.is_file(), "the lock file and its folders are created"
        assert _seen_by_another_process(lock_file) == "held"
    assert _seen_by_another_process(lock_file) == "free"


def test_the_lock_is_released_when_the_block_raises(tmp_path: Path) -> None:
    lock_file = tmp_path / "x.lock"
    try:
        with exclusive_lock(lock_file):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert _seen_by_another_process(lock_file) == "free"
