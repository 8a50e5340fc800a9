"""A read-only view of the files of one commit, as pure analyzers see it.

Analyzers take a :class:`SourceTree` rather than a path so they can be unit
tested on in-memory trees; activities hand them a directory-backed tree built
over a commit snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from prflow.file_names import display_fs, fs_candidates


class SourceTree(Protocol):
    """Files of one commit, addressed by POSIX paths relative to the repo root.

    Paths are display names (``prflow.file_names``): undecodable bytes appear as
    ``\\xNN`` so every path can go into JSON, a report or a Temporal payload.
    """

    @property
    def root(self) -> Path | None:
        """A directory holding the tree when there is one (some libraries need a path)."""
        ...

    def paths(self) -> list[str]:
        """Every regular file, sorted."""
        ...

    def read_text(self, path: str) -> str | None:
        """The file decoded as UTF-8 (invalid bytes replaced); None if missing or binary."""
        ...

    def size_of(self, path: str) -> int | None:
        """The file's size in bytes without reading it; None if missing."""
        ...


def on_disk(root: Path, path: str) -> Path:
    """Where display name ``path`` lives under ``root`` (the name as written if nothing exists)."""
    targets = [root / name for name in fs_candidates(path)]
    return next((t for t in targets if t.exists() or t.is_symlink()), targets[0])


def looks_binary(data: bytes) -> bool:
    """Git's heuristic: a NUL byte in the first 8000 bytes means binary."""
    return b"\0" in data[:8000]


class MemoryTree:
    """A tree held in a dict; for tests and for small synthesized inputs."""

    def __init__(self, files: Mapping[str, str | bytes]) -> None:
        self._files = dict(files)

    @property
    def root(self) -> Path | None:
        return None

    def paths(self) -> list[str]:
        return sorted(self._files)

    def read_text(self, path: str) -> str | None:
        value = self._files.get(path)
        if value is None:
            return None
        if isinstance(value, bytes):
            if looks_binary(value):
                return None
            return value.decode("utf-8", errors="replace")
        return value

    def size_of(self, path: str) -> int | None:
        value = self._files.get(path)
        if value is None:
            return None
        return len(value) if isinstance(value, bytes) else len(value.encode("utf-8"))


class DirectoryTree:
    """A tree on disk, e.g. a commit snapshot. Symlinks are not followed.

    Paths are display names; :meth:`read_text` maps them back to the names on disk.
    """

    def __init__(self, root: Path, paths: Iterable[str] | None = None) -> None:
        self._root = root
        self._paths = sorted(paths) if paths is not None else None

    @property
    def root(self) -> Path | None:
        return self._root

    def paths(self) -> list[str]:
        if self._paths is None:
            found = []
            for item in self._root.rglob("*"):
                if item.is_symlink() or not item.is_file():
                    continue
                rel = display_fs(item.relative_to(self._root).as_posix())
                if rel.startswith(".git/"):
                    continue
                found.append(rel)
            self._paths = sorted(found)
        return list(self._paths)

    def read_text(self, path: str) -> str | None:
        target = on_disk(self._root, path)
        if target.is_symlink() or not target.is_file():
            return None
        data = target.read_bytes()
        if looks_binary(data):
            return None
        return data.decode("utf-8", errors="replace")

    def size_of(self, path: str) -> int | None:
        target = self._root / path
        if target.is_symlink() or not target.is_file():
            return None
        return target.stat().st_size


class CachedTree:
    """Another tree whose file reads are kept: for analyzers that read the same files often."""

    def __init__(self, tree: SourceTree) -> None:
        self._tree = tree
        self._texts: dict[str, str | None] = {}

    @property
    def root(self) -> Path | None:
        return self._tree.root

    def paths(self) -> list[str]:
        return self._tree.paths()

    def read_text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._tree.read_text(path)
        return self._texts[path]

    def size_of(self, path: str) -> int | None:
        return self._tree.size_of(path)
