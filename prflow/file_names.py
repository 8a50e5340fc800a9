"""File names as prflow shows them, whatever bytes git stores.

Git file names are bytes. Nearly all are UTF-8, but a repository may hold
Latin-1 or plain garbage names, and Python's ``os.fsdecode`` turns those into
strings with lone surrogates, which no JSON encoder, database or Temporal
payload accepts. So every name that leaves the git layer is a *display name*:
the UTF-8 text of the name, with each undecodable byte written as ``\\xNN``
(a valid UTF-8 name is its own display name). Where a display name has to
reach the disk or git again, :func:`fs_candidates` turns it back.

The escape is not a perfect code: a valid name that literally contains
``\\xe9`` displays the same as a Latin-1 ``é``. Lookups therefore try the name
as written first and the unescaped bytes second.
"""

from __future__ import annotations

import os
import re

_BYTE_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")
_SEPARATOR = re.compile(r"\\(?!x[89a-fA-F][0-9a-fA-F])")


def display_name(raw: bytes) -> str:
    """The display name of a file name as git or the OS gives it in bytes."""
    return raw.decode("utf-8", errors="backslashreplace")


def display_fs(name: str) -> str:
    """The display name of a name from ``os`` / ``pathlib`` (undecodable bytes as surrogates)."""
    return display_name(os.fsencode(name))


def fs_candidates(display: str) -> list[str]:
    """Names to try on disk or in a git pathspec for ``display``: as written, then unescaped."""
    if "\\x" not in display:
        return [display]
    unescaped = _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m[1], 16)), display)
    return [display] if unescaped == display else [display, unescaped]


def raw_name(display: str) -> bytes:
    """The bytes ``display`` most likely stands for (for URIs that must name the real file)."""
    return os.fsencode(fs_candidates(display)[-1])


def backslashes_to_slashes(path: str) -> str:
    """Windows separators as ``/``, except the backslash of a ``\\xNN`` escape of a display name."""
    return _SEPARATOR.sub("/", path)
