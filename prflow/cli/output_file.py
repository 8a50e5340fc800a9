"""Report files: checked before a run starts, written whole or not at all.

A run can cost real money, so an output path that cannot be written is
reported before the first model call, and a report is written to a temporary
file in the same directory and renamed into place, so a failure never leaves
a half-written report behind.
"""

from __future__ import annotations

import contextlib
import os
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


def write_output(output: Path, text: str) -> None:
    """Write ``text`` (ending in a newline) to ``output`` atomically."""
    body = text if text.endswith("\n") else text + "\n"
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
