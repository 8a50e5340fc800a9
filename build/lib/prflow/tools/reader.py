"""The read-only view of a repository that the six tools are written against.

Tools never run git themselves: they take a :class:`RepoReader`, so the same
functions serve Temporal activities, the CLI and the MCP server, each handing
in whatever implementation fits (the git-backed one lives in ``activities``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

from prflow.changes import ChangedFile
from prflow.source_tree import SourceTree

if TYPE_CHECKING:
    from prflow.imports import ImportGraph


MAX_GREP_HITS = 5_000
"""Readers may stop ``grep`` after this many matching lines, so one broad pattern stays cheap."""


class ToolError(Exception):
    """A tool call the caller can fix (bad path, bad regex, unknown file); shown verbatim."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class GrepHit(BaseModel):
    """One matching line."""

    file: str
    line: int
    match: str


class RepoReader(Protocol):
    """Commit-addressed reads of one repository. SHAs are full commit ids."""

    def resolve_commit(self, rev: str) -> str | None:
        """The commit id ``rev`` names, or None when there is no such commit."""
        ...

    def changed_files(self, base_sha: str, head_sha: str) -> list[ChangedFile]:
        """Files changed from ``base_sha`` to ``head_sha``, renames detected."""
        ...

    def diff(self, base_sha: str, head_sha: str, paths: Sequence[str] | None = None) -> str:
        """Unified diff text, limited to ``paths`` when given."""
        ...

    def read_file(self, sha: str, path: str) -> bytes | None:
        """File bytes at ``sha`` (symlinks inside the tree followed), None when absent.

        Raises :class:`ToolError` when the path leaves the repository.
        """
        ...

    def list_files(self, sha: str) -> list[str]:
        """Every file path at ``sha``, sorted."""
        ...

    def grep(self, sha: str, pattern: str, glob: str | None = None) -> list[GrepHit]:
        """Lines matching the extended regex ``pattern`` in text files at ``sha``.

        At most :data:`MAX_GREP_HITS` hits. Raises :class:`ToolError` for an invalid pattern.
        """
        ...

    def tree(self, sha: str) -> SourceTree:
        """The files of ``sha`` for the pure analyzers."""
        ...

    def import_graph(self, sha: str) -> ImportGraph:
        """The import graph of ``sha``, built once and cached."""
        ...
