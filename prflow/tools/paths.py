"""Keep every path a tool is given inside the repository.

Callers (often a model) may send absolute paths, ``..`` escapes or names of
symlinks that point out of the tree; each is refused with a message that says
what a valid path looks like.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from prflow.file_names import backslashes_to_slashes
from prflow.tools.reader import ToolError

_HINT = "use a path relative to the repository root, e.g. 'src/app.py'"
MAX_PATH_CHARS = 4_096
"""Longer than any path a file system stores (Linux PATH_MAX); such a path names nothing."""


def clean_repo_path(path: str) -> str:
    """Normalise a repo-relative POSIX path, refusing anything that could leave the tree."""
    raw = path.strip()
    if not raw:
        raise ToolError(f"empty path: {_HINT}")
    if "\0" in raw:
        raise ToolError(f"path contains a NUL byte: {_HINT}")
    if len(raw) > MAX_PATH_CHARS:
        raise ToolError(f"path of {len(raw)} characters is longer than any file name: {_HINT}")
    unified = backslashes_to_slashes(raw)
    if unified.startswith(("/", "~")) or (len(unified) > 1 and unified[1] == ":"):
        raise ToolError(f"absolute path {path!r} is not allowed: {_HINT}")
    normal = posixpath.normpath(unified)
    if normal == ".":
        raise ToolError(f"{path!r} names the repository root, not a file: {_HINT}")
    if normal == ".." or normal.startswith("../"):
        raise ToolError(f"path {path!r} escapes the repository with '..': {_HINT}")
    return normal


def clean_glob(glob: str) -> str:
    """A git pathspec glob that stays inside the repository (no magic, no escapes)."""
    raw = glob.strip()
    if raw.startswith(":"):
        raise ToolError(
            f"pathspec magic ({glob!r}) is not supported: pass a plain glob like '*.py'"
        )
    return clean_repo_path(raw)


def resolve_inside(root: Path, path: str) -> Path:
    """The real location of ``path`` under ``root``, following symlinks that stay inside.

    Raises :class:`ToolError` when the path, or a symlink along it, leads out of ``root``.
    """
    relative = clean_repo_path(path)
    real_root = Path(os.path.realpath(root))
    target = Path(os.path.realpath(real_root / relative))
    if target != real_root and real_root not in target.parents:
        raise ToolError(
            f"{relative!r} is a symlink (or goes through one) that points outside the "
            "repository; only files inside the repository can be read"
        )
    return target
