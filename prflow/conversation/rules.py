"""The conversation's decisions, in code: which events to handle, whom to answer, how often."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from prflow.conversation.events import IssueCommentEvent, ReviewCommentEvent
from prflow.conversation.state import (
    LEFT_ALONE_LIMIT,
    NOTES_LIMIT,
    SEEN_LIMIT,
    AnyEvent,
    ConversationState,
)

RATE_WINDOW = timedelta(hours=1)


def admit(state: ConversationState, event: AnyEvent) -> bool:
    """Queue ``event`` unless its id was handled or queued before; False for a duplicate."""
    if event.event_id in state.seen:
        return False
    state.seen.append(event.event_id)
    del state.seen[:-SEEN_LIMIT]
    state.pending.append(event)
    return True


def is_bot(login: str, author_type: str) -> bool:
    """A bot account (GitHub's ``type``, or an App's ``name[bot]`` login)."""
    return author_type == "Bot" or login.endswith("[bot]")


def worth_reading(event: ReviewCommentEvent | IssueCommentEvent) -> bool:
    """A person's reply in a thread, or a comment that may mention prflow: the only ones
    that may need an answer (the rest cost no GitHub call).

    Whether the thread is prflow's, the mention is of prflow and the comment is not
    prflow's own is decided where prflow's login is known (the read activity)."""
    if is_bot(event.author, event.author_type):
        return False
    in_thread = isinstance(event, ReviewCommentEvent) and event.in_reply_to_id is not None
    return in_thread or "@" in event.body


def mentions(body: str, login: str | None) -> bool:
    """Whether ``body`` @-mentions ``login`` (case-insensitive, as GitHub matches)."""
    if not login:
        return False
    name = re.escape(login.removesuffix("[bot]"))
    return re.search(rf"(?<![\w/])@{name}(?:\[bot\])?(?![\w-])", body, re.IGNORECASE) is not None


def may_reply(state: ConversationState, now: datetime) -> bool:
    """Whether the PR's rate limit allows one more answer now."""
    recent = [t for t in state.reply_times if now - t < RATE_WINDOW]
    state.reply_times = recent
    return len(recent) < state.replies_per_hour


def note_reply(state: ConversationState, now: datetime) -> None:
    state.reply_times.append(now)
    del state.reply_times[: -max(state.replies_per_hour, 1)]


def leave_alone(state: ConversationState, root_comment_id: int | None) -> None:
    """A person resolved or unresolved this thread: prflow never changes it again."""
    if root_comment_id is None or root_comment_id in state.left_alone:
        return
    state.left_alone.append(root_comment_id)
    del state.left_alone[:-LEFT_ALONE_LIMIT]


def note(state: ConversationState, line: str) -> None:
    state.notes.append(line[:200])
    del state.notes[:-NOTES_LIMIT]
