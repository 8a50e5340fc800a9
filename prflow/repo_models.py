"""Repository identities and tool-call envelopes that cross Temporal boundaries.

Workflows only ever hold these small values: a resolved commit range (SHAs,
never file contents) and a tool call whose result sits in the blob store.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from prflow.credentials import SafeLocation


class RepoSpec(BaseModel):
    """Where the repository is, as the user named it; a location carrying a secret is refused."""

    model_config = ConfigDict(hide_input_in_errors=True)

    location: SafeLocation = Field(
        description="Local path, or a clone URL (file://, https://, ssh)"
    )
    pr_number: int | None = Field(
        default=None, description="When set, refs/pull/N/head is fetched into the mirror"
    )


class ResolvedRange(BaseModel):
    """A base..head comparison pinned to commits, so every worker reads the same thing."""

    model_config = ConfigDict(hide_input_in_errors=True)

    repo_key: str = Field(description="Stable short hash naming the repo in the cache")
    location: SafeLocation = Field(description="Absolute local path or the clone URL")
    base_ref: str
    head_ref: str
    base_sha: str
    head_sha: str
    merge_base_sha: str = Field(description="The diff runs merge_base_sha..head_sha, like a PR")


class ResolveRangeInput(BaseModel):
    """Input of the ``repo_resolve_range`` activity."""

    spec: RepoSpec
    base: str | None = Field(default=None, description="None: main, else master")
    head: str


class ToolCallInput(BaseModel):
    """One read-only repository tool call requested by an agent or by code."""

    range: ResolvedRange
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolCallOutput(BaseModel):
    """Outcome of a tool call; the full text lives in the blob store under ``content_key``."""

    ok: bool
    content_key: str
    preview: str = Field(description="The first 2 KB of the content")
    error: str | None = None


def looks_like_url(location: str) -> bool:
    """A clone URL (``scheme://`` or scp-like ``user@host:path``), not a local path."""
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://|^[\w.-]+@[\w.-]+:", location))


def repository_name(location: str) -> str:
    """What to call a repository in a prompt: ``api`` for ``/home/me/api`` or ``.../api.git``.

    A local path tells a model nothing it can use and costs tokens in every request.
    """
    name = location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return name.removesuffix(".git") or location
