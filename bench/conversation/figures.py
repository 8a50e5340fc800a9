"""Judging the run from what GitHub, the ledger and the workflows hold at the end.

- **handled exactly once**: each distinct event (a reply, a push; redeliveries and
  polls of an event are the same event) is in the conversation's handled ids, a
  reply has exactly one answer, and no PR's conversation counted more events than
  the script has distinct ones (a push's single "addressed" note per thread is judged
  with the threads). A model request sent again because a worker died waiting for its
  answer (nothing was kept to reuse) is counted apart.
- **threads resolved exactly when their finding no longer holds**: a thread whose
  cited line a push rewrote is resolved with one note naming that push or a later
  head; every other thread is open with no note.
- **rebutted findings raised again**: a finding whose last scripted reply rebutted it,
  and whose cited line no push changed, must be among the PR's rebutted fingerprints,
  the set a later review of the PR leaves out (``activities/review.py`` hands it to
  synthesis); one missing would be raised again.
- **latency**: from the first delivery attempt of a reply to prflow's answer on GitHub.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from bench.conversation.drive import PERSON, Acted
from bench.conversation.repos import NUMBER, OWNER, BenchPr
from bench.conversation.script import PUSHES, REPLIES, Kind, PrScript
from prflow.conversation.events import comment_event_id, head_event_id
from prflow.conversation.markers import addressed_prefix, reply_marker
from prflow.conversation.state import ConversationState
from prflow.store.finding_verdicts import rebutted_fingerprints
from tests.support.fake_github import FakeGitHub
from tests.support.fake_github_reviews import FakeReviewComment
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN
from tests.support.scripted_anthropic import ScriptedAnthropic


@dataclass
class Figures:
    events: int = 0
    events_once: int = 0
    replies: int = 0
    replies_once: int = 0
    replies_missing: int = 0
    replies_twice: int = 0
    model_requests_resent: int = 0
    threads: int = 0
    threads_right: int = 0
    rebutted_expected: int = 0
    rebutted_raised_again: int = 0
    over_counted_prs: int = 0
    continued: int = 0
    """Continue-as-new runs of all the conversations together."""
    latencies: list[float] = field(default_factory=list)
    crossed: list[float] = field(default_factory=list)
    """Latencies of the replies a crash fell between delivery and answer."""
    problems: list[str] = field(default_factory=list)


def expected_events(pr: PrScript) -> int:
    """Events the PR's conversation handles: the review, each reply and each push."""
    return 1 + sum(1 for e in pr.events if e.kind in REPLIES | PUSHES)


def judge(
    fake: FakeGitHub,
    model: ScriptedAnthropic,
    db_url: str,
    scripts: list[PrScript],
    prs: list[BenchPr],
    acted: dict[tuple[int, int], Acted],
    states: dict[int, ConversationState | None],
    crash_times: list[datetime],
) -> Figures:
    figures = Figures()
    requests = Counter(_nonce_of(r.body) for r in model.requests)
    for script, pr in zip(scripts, prs, strict=True):
        state = states[pr.number]
        queued = {e.event_id for e in state.pending} if state else set()
        seen = set(state.seen) - queued if state else set()  # admitted and handled
        comments = fake.review_comments(OWNER, pr.repo, NUMBER)
        ours = [c for c in comments if c.author == FAKE_GITHUB_LOGIN]
        figures.continued += state.continued if state else 0
        if state is None or state.tally.events > expected_events(script):
            figures.over_counted_prs += state is not None
            figures.problems.append(f"{pr.repo}: tally {state.tally if state else 'no state'}")
        over = state is None or state.tally.events > expected_events(script)
        for event in script.events:
            done = acted[(pr.number, event.index)]
            if event.kind in REPLIES:
                assert done.comment_id is not None
                answers = [c for c in ours if reply_marker(done.comment_id) in c.body]
                paid = requests[event.nonce]
                figures.replies += 1
                figures.replies_once += len(answers) == 1
                figures.replies_missing += not answers
                figures.replies_twice += len(answers) > 1
                figures.model_requests_resent += max(paid - 1, 0)
                once = comment_event_id(done.comment_id) in seen and len(answers) == 1
                if answers and done.sent_at is not None:
                    posted = answers[0].created_at
                    seconds = (posted - done.sent_at).total_seconds()
                    figures.latencies.append(seconds)
                    if any(done.sent_at <= t <= posted for t in crash_times):
                        figures.crossed.append(seconds)
            elif event.kind in PUSHES:
                assert done.head_sha is not None
                once = head_event_id(done.head_sha) in seen
            else:
                continue
            figures.events += 1
            figures.events_once += once and not over
            if not once:
                figures.problems.append(f"{pr.repo} event {event.index} ({event.kind}) not once")
        _judge_threads(figures, fake, pr, ours)
        _judge_rebuttals(figures, db_url, script, pr)
    return figures


def _judge_threads(
    figures: Figures, fake: FakeGitHub, pr: BenchPr, ours: list[FakeReviewComment]
) -> None:
    threads = {t.comments[0].id: t for t in fake.review_threads(OWNER, pr.repo, NUMBER)}
    for finding, root in pr.roots.items():
        thread = threads.get(root)
        notes = [c for c in ours if addressed_prefix(root) in c.body]
        fixed = finding in pr.fixed
        right = thread is not None and thread.is_resolved == fixed
        if fixed:
            later = {sha[:12] for sha in pr.heads[pr.fixed_at[finding] :]}
            right = (
                right
                and len(notes) == 1
                and any(
                    f"at {sha} -->" in notes[0].body  # type: ignore[attr-defined]
                    for sha in later
                )
            )
        else:
            right = right and not notes
        figures.threads += 1
        figures.threads_right += right
        if not right:
            state = "resolved" if thread and thread.is_resolved else "open"
            figures.problems.append(
                f"{pr.repo} finding {finding}: fixed={fixed}, thread {state}, notes {len(notes)}"
            )


def _judge_rebuttals(figures: Figures, db_url: str, script: PrScript, pr: BenchPr) -> None:
    last: dict[int, Kind] = {}
    for event in script.events:
        if event.kind in (Kind.accept, Kind.rebut):
            last[event.findings[0]] = event.kind
    remembered = set(rebutted_fingerprints(db_url, f"{OWNER}/{pr.repo}", NUMBER))
    for finding, kind in last.items():
        if kind == Kind.rebut and finding not in pr.fixed:
            figures.rebutted_expected += 1
            if pr.findings[finding].fingerprint not in remembered:
                figures.rebutted_raised_again += 1
                figures.problems.append(f"{pr.repo} finding {finding}: rebuttal not remembered")


def _nonce_of(body: dict[str, object]) -> str:
    """The reply a model request answers (its ``<reply>`` element opens with the nonce)."""
    messages = body.get("messages") or []
    first = messages[0].get("content") if messages else ""  # type: ignore[union-attr,index]
    text = first if isinstance(first, str) else " ".join(str(b.get("text", "")) for b in first)
    marker = f'<reply author="{PERSON}">\n'
    at = text.find(marker)
    return text[at + len(marker) :].split(":", 1)[0] if at >= 0 else ""


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
