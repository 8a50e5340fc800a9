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
- **asks answered exactly once**: a ``/prflow ask`` comment has exactly one answer
  comment on the PR (its hidden marker names the comment) and is among the handled ids.
- **fixes delivered exactly once**: a ``/prflow fix`` has exactly one note in its thread;
  a fix whose edit keeps the tests green pushed exactly one commit (its trailer names the
  command) whose parent is the head it was asked on, and the note links it; a fix whose
  edit breaks a test pushed nothing and the note says why, naming the test.
- **fixes that pushed a regression**: a commit on the PR's branch carrying a fix's
  trailer on which the repository's tests fail (run here with this interpreter's pytest);
  the goal is none.
- **latency**: from the first delivery attempt of a reply or an ask to prflow's answer on
  GitHub; for fixes apart, to the fix's note in its thread.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from bench.conversation.drive import PERSON, Acted
from bench.conversation.repos import NUMBER, OWNER, TEST_COMMAND, BenchPr
from bench.conversation.script import COMMANDS, PUSHES, REPLIES, Event, Kind, PrScript
from prflow.conversation.events import comment_event_id, head_event_id, issue_comment_event_id
from prflow.conversation.markers import addressed_prefix, fix_marker, fix_trailer, reply_marker
from prflow.conversation.state import ConversationState
from prflow.store.finding_verdicts import rebutted_fingerprints
from tests.support.fake_github import FakeGitHub
from tests.support.fake_github_reviews import FakeReviewComment
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN
from tests.support.sample_repos import git
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
    asks: int = 0
    asks_once: int = 0
    fixes: int = 0
    fixes_once: int = 0
    fixes_pushed: int = 0
    fixes_refused: int = 0
    """Breaking fixes that pushed nothing and told the thread so (goal: all of them)."""
    fixes_regressed: int = 0
    fix_latencies: list[float] = field(default_factory=list)
    over_counted_prs: int = 0
    continued: int = 0
    """Continue-as-new runs of all the conversations together."""
    latencies: list[float] = field(default_factory=list)
    crossed: list[float] = field(default_factory=list)
    """Latencies of the replies a crash fell between delivery and answer."""
    problems: list[str] = field(default_factory=list)


def expected_events(pr: PrScript) -> int:
    """Events the PR's conversation handles: the review, each reply and each push."""
    return 1 + sum(1 for e in pr.events if e.kind in REPLIES | PUSHES | COMMANDS)


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
        on_pr = [m for m in fake.comments(OWNER, pr.repo, NUMBER) if m.author == FAKE_GITHUB_LOGIN]
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
            elif event.kind == Kind.command_ask:
                assert done.comment_id is not None
                said = [c for c in on_pr if reply_marker(done.comment_id) in c.body]
                figures.asks += 1
                figures.asks_once += len(said) == 1
                figures.model_requests_resent += max(requests[event.nonce] - 1, 0)
                once = issue_comment_event_id(done.comment_id) in seen and len(said) == 1
                if said and done.sent_at is not None:
                    seconds = (said[0].created_at - done.sent_at).total_seconds()
                    figures.latencies.append(seconds)
                    if any(done.sent_at <= t <= said[0].created_at for t in crash_times):
                        figures.crossed.append(seconds)
            elif event.kind == Kind.command_fix:
                once = comment_event_id(done.comment_id or 0) in seen
                once = _judge_fix(figures, pr, event, done, ours) and once
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


def _judge_fix(
    figures: Figures, pr: BenchPr, event: Event, done: Acted, ours: list[FakeReviewComment]
) -> bool:
    """Whether the fix was delivered exactly once (one note; one validated commit on the
    head it was asked on, or nothing and the failing test named); counts regressions."""
    assert done.comment_id is not None and done.head_sha is not None
    figures.fixes += 1
    notes = [c for c in ours if fix_marker(done.comment_id) in c.body]
    commits = _fix_commits(pr, done.comment_id)
    for sha in commits:
        if not _tests_pass(pr, sha):
            figures.fixes_regressed += 1
            figures.problems.append(f"{pr.repo} event {event.index}: fix {sha[:12]} regressed")
    note = notes[0].body if len(notes) == 1 else ""
    if event.breaks:
        right = not commits and "No fix pushed" in note and f"ratio_{event.findings[0]}" in note
        figures.fixes_refused += right
    else:
        right = (
            len(commits) == 1
            and git(pr.bare, "rev-parse", f"{commits[0]}^") == done.head_sha
            and f"Fixed in [{commits[0][:12]}]" in note
        )
        figures.fixes_pushed += right
    figures.fixes_once += right
    if not right:
        figures.problems.append(
            f"{pr.repo} event {event.index}: fix (breaks={event.breaks}) notes {len(notes)}, "
            f"commits {len(commits)}: {note[:160]!r}"
        )
    elif notes and done.sent_at is not None:
        figures.fix_latencies.append((notes[0].created_at - done.sent_at).total_seconds())
    return right


def _fix_commits(pr: BenchPr, comment_id: int) -> list[str]:
    """Commits on the PR's branch (in the bare repository GitHub serves) naming the fix."""
    trailer = f"^{fix_trailer(comment_id)}$"
    listed = git(pr.bare, "log", "--format=%H", f"--grep={trailer}", "feature")
    return listed.split()


def _tests_pass(pr: BenchPr, sha: str) -> bool:
    """The repository's tests at ``sha``, run with this interpreter's pytest."""
    with tempfile.TemporaryDirectory(prefix="bench-fix-") as where:
        archive = subprocess.run(
            ["git", "--git-dir", str(pr.bare), "archive", sha],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", where], input=archive.stdout, check=True)
        command = [sys.executable, *TEST_COMMAND.split()[1:], "-p", "no:cacheprovider"]
        ran = subprocess.run(command, cwd=where, capture_output=True, check=False)
        return ran.returncode == 0


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
    said = text[at + len(marker) :].removeprefix("/prflow ask ") if at >= 0 else ""
    return said.split(":", 1)[0]


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
