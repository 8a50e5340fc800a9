"""Arguments of the MCP tools, as pydantic models: their JSON schemas are what clients see.

Repo tools take the usual tool arguments plus where to look (``repo``,
``base``, ``head``); PR tools take a PR identifier in any accepted form.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.github_models import MAX_WAIT_SECONDS
from prflow.pr_identifier import ACCEPTED_FORMS

_PR = Field(description=f"The pull request: {ACCEPTED_FORMS}")
_PAGE = Field(default=1, ge=1, description="1-based page number")


class RepoTarget(BaseModel):
    """Which commits a repo tool reads: like a PR, ``head`` compared with ``base``."""

    repo: str = Field(
        default=".", description="Local repository path or clone URL (default: the current one)"
    )
    base: str | None = Field(
        default=None,
        description="Base ref (default: main, else master); diffs start at the merge base",
    )
    head: str = Field(default="HEAD", description="Head ref holding the change")


class PrCommentsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pr: str = _PR
    exclude_authors: list[str] = Field(
        default_factory=list,
        description="Logins to leave out, e.g. ['coderabbitai']; bots are included by default",
    )
    page: int = _PAGE
    page_size: int = Field(default=20, ge=1, le=100, description="Threads per page")


class PrChecksArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pr: str = _PR
    wait: bool = Field(
        default=False,
        description="Wait for CI to finish (a durable workflow polling every 30 s, "
        "30 minutes at most) instead of answering at once",
    )
    bail_on_first: bool = Field(
        default=False, description="With wait: return as soon as one check fails"
    )
    max_wait_seconds: int = Field(default=MAX_WAIT_SECONDS, ge=0, le=MAX_WAIT_SECONDS)
    page: int = _PAGE
    page_size: int = Field(default=10, ge=1, le=100, description="Failures per page")


class PrStackArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pr: str = _PR
