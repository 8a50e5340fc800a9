"""Temporal activities for repository access: resolve a commit range, run one repo tool.

Tool failures a model can act on (bad path, bad regex, unknown file) come back
as ``ok=False`` results so the agent loop can show them to the model; only
infrastructure failures fail the activity (and are retried by Temporal).
"""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeats import heartbeating
from prflow.config import cached_settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.git.repo import GitRepoReader, resolve_range
from prflow.repo_models import ResolvedRange, ResolveRangeInput, ToolCallInput, ToolCallOutput
from prflow.store.blobs import put_text
from prflow.tools.reader import ToolError
from prflow.tools.registry import run_tool

PREVIEW_BYTES = 2_048


def _user_failure(exc: UserError) -> ApplicationError:
    return ApplicationError(exc.message, type=USER_ERROR_TYPE, non_retryable=True)


@activity.defn(name="repo_resolve_range")
@heartbeating
def resolve_range_activity(inp: ResolveRangeInput) -> ResolvedRange:
    """Pin base and head to commits (fetching a remote mirror first)."""
    try:
        return resolve_range(inp.spec, inp.base, inp.head)
    except UserError as exc:
        raise _user_failure(exc) from exc


def preview_of(text: str) -> str:
    """At most :data:`PREVIEW_BYTES` of UTF-8, cut on a character boundary."""
    encoded = text.encode("utf-8")
    if len(encoded) <= PREVIEW_BYTES:
        return text
    return encoded[:PREVIEW_BYTES].decode("utf-8", errors="ignore")


def _call_tool(inp: ToolCallInput) -> ToolCallOutput:
    db_url = cached_settings().resolved_database_url()
    try:
        reader = GitRepoReader.for_range(inp.range)
        text = run_tool(reader, inp.range, inp.tool, inp.arguments).text
    except ToolError as exc:
        message = f"{inp.tool} failed: {exc.message}"
        key = put_text(db_url, message)
        return ToolCallOutput(ok=False, content_key=key, preview=preview_of(message), error=message)
    return ToolCallOutput(ok=True, content_key=put_text(db_url, text), preview=preview_of(text))


@activity.defn(name="repo_tool")
@heartbeating
def run_repo_tool(inp: ToolCallInput) -> ToolCallOutput:
    """Run one of the six read-only tools against the range's commits."""
    try:
        return _call_tool(inp)
    except UserError as exc:
        raise _user_failure(exc) from exc
