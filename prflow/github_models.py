"""What the GitHub activities take and return, and the rules a PR comment must obey.

These models cross Temporal as activity inputs and results, so they carry
identifiers and short strings only; comment bodies travel as blob-store keys.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.pr_identifier import PullRequestRef

COMMENT_MAX_CHARS = 65_536
"""GitHub rejects issue comments longer than this (HTTP 422)."""

_CUT_BACK_TO_LINE_WITHIN = 2_000


class PullRequestInfo(BaseModel):
    """A pull request as the rest of prflow needs it: where to fetch it and which commits."""

    ref: PullRequestRef
    title: str
    html_url: str
    clone_url: str = Field(
        description="Clone URL of the base repository; PR heads are fetched from it"
    )
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    state: str = Field(description="GitHub's state: 'open' or 'closed'")


class CommentUpsertInput(BaseModel):
    """Post or refresh the single comment that ``marker`` identifies on a pull request."""

    pr: PullRequestRef
    marker: str = Field(description="An HTML comment such as '<!-- prflow:impact -->'")
    body_key: str = Field(description="Blob-store key of the Markdown body")


class CommentUpsertResult(BaseModel):
    comment_id: int
    url: str
    created: bool = Field(description="True when a new comment was posted, False when edited")


def comment_body(body: str, marker: str, limit: int = COMMENT_MAX_CHARS) -> str:
    """The text to post: ``body`` carrying ``marker``, cut to fit ``limit`` with a visible note.

    The marker is how the next run finds this comment again, so it survives any
    cut. A cut lands on a line boundary when one is near, and closes a code
    fence it would otherwise leave open so the note renders as text.
    """
    text = body if marker in body else f"{marker}\n{body}"
    if len(text) <= limit:
        return text
    note = _truncation_note(len(text), limit)
    room = limit - len(note) - len("\n```")
    kept = text[:room]
    if marker not in kept:
        kept = f"{marker}\n{text[: room - len(marker) - 1]}"
    line_end = kept.rfind("\n")
    if line_end >= len(kept) - _CUT_BACK_TO_LINE_WITHIN and line_end > len(marker):
        kept = kept[:line_end]
    if kept.count("```") % 2 == 1:
        kept += "\n```"
    return kept + note


def _truncation_note(total: int, limit: int) -> str:
    return (
        f"\n\n---\n**This comment was cut short:** the full text has {total:,} characters and "
        f"GitHub allows {limit:,} per comment. The complete report is in the run's JSON and "
        "Markdown outputs."
    )


class PullSummary(BaseModel):
    """What the PR tools need to know about one pull request (no bodies, no diffs)."""

    number: int
    title: str
    url: str
    state: str = Field(description="'open' or 'closed'")
    merged: bool
    draft: bool
    base_ref: str
    head_ref: str
    head_sha: str
    head_repo: str | None = Field(description="owner/name of the head branch's repository")
    mergeable: bool | None = Field(None, description="None while GitHub is still computing it")
    mergeable_state: str | None = None
    behind_by: int | None = Field(
        None, description="Commits on the base branch that the head does not have"
    )
