"""Report files: checked before a run starts, written whole or not at all.

A run can cost real money, so an output path that cannot be written is
reported before the first model call, and a report is written to a temporary
file in the same directory and renamed into place, so a failure never leaves
a half-written report behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from prflow.errors import UserError


def check_output_path(output: Path | None) -> None:
    """Fail now, in one line, if ``output`` could not be written later."""
    if output is None:
        return
    if output.is_dir():
        raise UserError(f"--output {output} is a directory; name a file, e.g. {output}/report.md")
    parent = output.parent if str(output.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(
            f"--output {output}: directory {parent} does not exist; create it or choose "
            "another path"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"--output {output}: directory {parent} is not writable")
    if output.exists() and not os.access(output, os.W_OK):
        raise UserError(f"--output {output} exists and is not writable")
    if output.exists() and not _writable_through(output) and not _replaceable(output):
        raise UserError(
            f"--output {output} is neither a file, a pipe nor a terminal; name a file "
            "(prflow never replaces a device or a socket)"
        )


def _replaceable(output: Path) -> bool:
    """A regular file itself (not a link): safe to replace atomically."""
    try:
        return stat.S_ISREG(os.lstat(output).st_mode)
    except FileNotFoundError:
        return True


def _writable_through(output: Path) -> bool:
    """A link, a pipe or a character device (``/dev/stdout``, a FIFO, a tty): written
    through, never replaced, or the link or device node would become a plain file."""
    try:
        mode = os.stat(output).st_mode
    except OSError:
        return False
    if output.is_symlink():
        return stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def write_output(output: Path, text: str) -> None:
    """Write ``text`` (ending in a newline) to ``output``: a file atomically, a pipe, a
    terminal or a link to one of them through."""
    body = text if text.endswith("\n") else text + "\n"
    if not _replaceable(output):
        if not _writable_through(output):
            raise UserError(f"cannot write {output}: not a file, a pipe or a terminal")
        try:
            with output.open("w", encoding="utf-8") as stream:
                stream.write(body)
        except OSError as err:
            raise UserError(f"cannot write {output}: {err.strerror}") from err
        return
    parent = output.parent if str(output.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{output.name}.", dir=parent)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(body)
        os.replace(temporary, output)
    except OSError as err:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(temporary)
        raise UserError(f"cannot write {output}: {err.strerror}; choose another --output") from err
