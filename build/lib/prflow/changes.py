"""What a change is made of: its files, their status and category, and the totals.

Shared by every job kind (impact, review, doc sync) and by the repository tools.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class FileStatus(StrEnum):
    added = "added"
    modified = "modified"
    deleted = "deleted"
    renamed = "renamed"


class FileCategory(StrEnum):
    source = "source"
    test = "test"
    doc = "doc"
    config = "config"
    other = "other"


class ChangedFile(BaseModel):
    """One entry of ``list_changed_files``."""

    path: str
    status: FileStatus
    additions: int = 0
    deletions: int = 0
    old_path: str | None = Field(default=None, description="Previous path of a renamed file")
    binary: bool = False
    category: FileCategory = FileCategory.other


class Totals(BaseModel):
    files: int = 0
    additions: int = 0
    deletions: int = 0
