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


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_git_path(name: str) -> str:
    """The display name of a path as a diff header writes it.

    Git C-quotes a name holding a double quote, backslash, control character or (with
    core.quotePath, the default) a non-ASCII byte: ``"tab\\there"``, ``"caf\\303\\251"``.
    Anything else is the name itself.
    """
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    out, body, i = bytearray(), name[1:-1], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "0123":
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(_C_ESCAPES.get(nxt, ord(nxt)))
            i += 2
            continue
        out += char.encode("utf-8", errors="surrogateescape")
        i += 1
    return display_name(bytes(out))
