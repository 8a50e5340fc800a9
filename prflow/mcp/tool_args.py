"""Arguments of the MCP tools, as pydantic models: their JSON schemas are what clients see.

Repo tools take the usual tool arguments plus where to look (``repo``,
``base``, ``head``); PR tools take a PR identifier in any accepted form.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo

from prflow.credentials import SafeLocation
from prflow.errors import InvalidValue
from prflow.pr_identifier import ACCEPTED_FORMS
from prflow.pr_tools.run_models import MAX_WAIT_SECONDS

_PR = Field(description=f"The pull request: {ACCEPTED_FORMS}")
_PAGE = Field(default=1, ge=1, description="1-based page number")


def _without_nul(value: str | None, info: ValidationInfo) -> str | None:
    """Git cannot hold a NUL byte in a path or ref, and no process argument can carry one."""
    if value is not None and "\0" in value:
        example = "'.' or a clone URL" if info.field_name == "repo" else "a branch, tag or commit"
        raise InvalidValue(f"{info.field_name} contains a NUL byte; pass {example}")
    return value


class RepoTarget(BaseModel):
    """Which commits a repo tool reads: like a PR, ``head`` compared with ``base``.

    A location carrying a password or token is refused with the CLI's redacted line.
    """

    model_config = ConfigDict(hide_input_in_errors=True)

    repo: Annotated[SafeLocation, AfterValidator(_without_nul)] = Field(
        default=".",
        description="Local repository path or clone URL, without a password or token "
        "(git supplies those); default: the current one",
    )
    base: Annotated[str | None, AfterValidator(_without_nul)] = Field(
        default=None,
        description="Base ref (default: main, else master); diffs start at the merge base",
    )
    head: Annotated[str, AfterValidator(_without_nul)] = Field(
        default="HEAD", description="Head ref holding the change"
    )


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


class PrArgs(BaseModel):
    """A tool that takes the pull request alone."""

    model_config = ConfigDict(extra="forbid")

    pr: str = _PR


class PrThreadsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pr: str = _PR
    include_resolved: bool = Field(
        default=False, description="List resolved threads too (to unresolve one)"
    )


class PrReplyArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pr: str = _PR
    target: str = Field(
        min_length=1,
        description="A thread id (PRRT_...) or the id of a comment in the thread",
    )
    body: str = Field(min_length=1, description="The reply, Markdown")


class PrResolveArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pr: str = _PR
    thread_ids: list[str] = Field(
        default_factory=list, description="Thread ids (PRRT_...) from pr_threads"
    )
    unresolve: bool = Field(default=False, description="Unresolve instead of resolve")
    outdated: bool = Field(
        default=False,
        description="Resolve every unresolved prflow thread a later push made outdated",
    )
