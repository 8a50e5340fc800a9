"""The conversation's decisions in code: dedupe, whom to answer, the rate limit, holding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from prflow.conversation import rules
from prflow.conversation.deliveries import conversation_event
from prflow.conversation.events import (
    IssueCommentEvent,
    PullAction,
    PullEvent,
    ReviewCommentEvent,
    ThreadAction,
    ThreadEvent,
)
from prflow.conversation.holding import anchor_of_hunk, finding_holds, hunk_at_head
from prflow.conversation.markers import dimension_of_finding, finding_text
from prflow.conversation.state import SEEN_LIMIT, ConversationState
from prflow.pr_identifier import PullRequestRef
from prflow.queue.state import QueueNames

PR = PullRequestRef(owner="acme", repo="api", number=12)
SHA = "a" * 40


def _state(**fields: object) -> ConversationState:
    return ConversationState(pr=PR, queues=QueueNames(main="m", llm="l", github="g"), **fields)


def _comment(
    comment_id: int, author: str = "alice", author_type: str = "User"
) -> ReviewCommentEvent:
    return ReviewCommentEvent(
        event_id=f"review_comment:{comment_id}",
        comment_id=comment_id,
        in_reply_to_id=1,
        author=author,
        author_type=author_type,
        body="why?",
    )


def test_an_event_id_is_queued_once_and_the_dedupe_set_stays_bounded() -> None:
    state = _state()
    assert rules.admit(state, _comment(5))
    assert not rules.admit(state, _comment(5)), "the same comment delivered again"
    assert [e.event_id for e in state.pending] == ["review_comment:5"]
    for n in range(SEEN_LIMIT + 10):
        rules.admit(state, PullEvent(event_id=f"head:{n}", action=PullAction.synchronize))
    assert len(state.seen) == SEEN_LIMIT
    assert "review_comment:5" not in state.seen  # the oldest went first


def test_bots_and_apps_are_never_answered() -> None:
    assert not rules.worth_reading(_comment(2, "renovate[bot]"))
    assert not rules.worth_reading(_comment(2, "ci", author_type="Bot"))
    assert rules.worth_reading(_comment(2, "alice"))


def test_only_replies_and_comments_that_may_mention_prflow_cost_a_github_call() -> None:
    new_thread = _comment(3).model_copy(update={"in_reply_to_id": None})
    assert not rules.worth_reading(new_thread)
    assert rules.worth_reading(new_thread.model_copy(update={"body": "@prflow-bot why?"}))
    plain = IssueCommentEvent(event_id="issue_comment:4", comment_id=4, author="al", body="LGTM")
    assert not rules.worth_reading(plain)
    assert rules.worth_reading(plain.model_copy(update={"body": "@prflow-bot is this safe?"}))


def test_mentions_match_the_login_only_as_a_whole_word() -> None:
    assert rules.mentions("thanks @prflow-bot, but why?", "prflow-bot")
    assert rules.mentions("@PRFLOW-BOT ping", "prflow-bot")
    assert not rules.mentions("@prflow-bot-two ping", "prflow-bot")
    assert not rules.mentions("mail me at x@prflow-bot.dev", "prflow-bot")
    assert not rules.mentions("@prflow-bot", None)


def test_the_rate_limit_counts_answers_of_the_last_hour() -> None:
    state = _state(replies_per_hour=2)
    now = datetime(2026, 11, 28, 12, tzinfo=UTC)
    assert rules.may_reply(state, now)
    rules.note_reply(state, now)
    rules.note_reply(state, now + timedelta(minutes=1))
    assert not rules.may_reply(state, now + timedelta(minutes=2))
    assert rules.may_reply(state, now + timedelta(minutes=61))


def test_threads_a_person_touched_are_remembered_once() -> None:
    state = _state()
    rules.leave_alone(state, 7)
    rules.leave_alone(state, 7)
    rules.leave_alone(state, None)
    assert state.left_alone == [7]


HUNK = (
    "@@ -7,3 +7,3 @@ class Cart:\n-def total(cart):\n+def total(cart: Cart, tax: float) -> float:"
)


def test_a_finding_holds_while_its_cited_line_is_in_the_file() -> None:
    anchor = anchor_of_hunk(HUNK)
    assert anchor == "def total(cart: Cart, tax: float) -> float:"
    assert finding_holds(anchor, "x = 1\n    def total(cart: Cart,  tax: float) -> float:\n")
    assert not finding_holds(anchor, "def total(cart: Cart, tax: float = 0.0) -> float:\n")
    assert not finding_holds(anchor, None), "the file is gone"
    assert finding_holds("", "anything"), "unknown anchor: kept open"


def test_the_hunk_at_head_is_numbered_around_the_anchor() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 30))
    shown = hunk_at_head(text, "line 20", None)
    assert "20 | line 20" in shown and "14 | line 14" in shown and "13 | line 13" not in shown


def test_finding_comments_give_their_dimension_and_text() -> None:
    body = (
        "**🟠 Important: total() lost its tax default**\n\nbody\n\n"
        "<sub>Found by Cart API compatibility · confidence 0.80 · correctness</sub>\n"
        "<!-- prflow:finding 0123456789abcdef -->"
    )
    assert dimension_of_finding(body) == "Cart API compatibility"
    assert "prflow:finding" not in finding_text(body)


def _repo() -> dict[str, object]:
    return {"name": "api", "owner": {"login": "acme"}}


def test_deliveries_map_to_typed_events_with_stable_ids() -> None:
    pull = {"number": 12, "merged": True, "head": {"sha": SHA}}
    comment = {
        "action": "created",
        "comment": {
            "id": 99,
            "in_reply_to_id": 98,
            "body": "intended",
            "path": "a.py",
            "user": {"login": "alice", "type": "User"},
        },
        "pull_request": pull,
        "repository": _repo(),
    }
    mapped = conversation_event("pull_request_review_comment", "guid-1", comment)
    assert mapped is not None
    ref, event = mapped
    assert ref == PR and isinstance(event, ReviewCommentEvent)
    assert (event.event_id, event.in_reply_to_id) == ("review_comment:99", 98)
    again = conversation_event("pull_request_review_comment", "guid-2", comment)
    assert again is not None and again[1].event_id == event.event_id, "a redelivery dedupes"

    sync = conversation_event(
        "pull_request", "g", {"action": "synchronize", "pull_request": pull, "repository": _repo()}
    )
    assert sync is not None and sync[1] == PullEvent(
        event_id=f"head:{SHA}", action=PullAction.synchronize, head_sha=SHA
    )
    closed = conversation_event(
        "pull_request", "g", {"action": "closed", "pull_request": pull, "repository": _repo()}
    )
    assert closed is not None and isinstance(closed[1], PullEvent) and closed[1].merged

    thread = conversation_event(
        "pull_request_review_thread",
        "g3",
        {
            "action": "unresolved",
            "thread": {"node_id": "T", "comments": [{"id": 98}, {"id": 99}]},
            "pull_request": pull,
            "repository": _repo(),
            "sender": {"login": "bob", "type": "User"},
        },
    )
    assert thread is not None and thread[1] == ThreadEvent(
        event_id="review_thread:g3",
        action=ThreadAction.unresolved,
        root_comment_id=98,
        actor="bob",
    )
    assert conversation_event("pull_request", "g", {"action": "labeled"}) is None
    assert conversation_event("push", "g", {}) is None
