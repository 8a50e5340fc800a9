"""The bench's scripted events, drawn from a seed before anything runs (pure, no I/O).

Each PR gets a few findings and a sequence of events a busy PR sees: people reply in
prflow's threads (accepting, rebutting or asking), the author pushes commits that fix
some findings and leave others (or touch nothing cited), and GitHub or the poller
delivers an event a second time. Kills of the worker and of the Temporal server happen
after seeded global delivery counts.

Members of the team also give the conversation's commands: ``/prflow ask`` in a PR
comment, and ``/prflow fix`` in a finding's thread whose scripted edit either fixes the
finding with the tests green or breaks a test. A fix is a refactor run with the
repository's tests before and after, so fixes are rare (at most one a PR), and once one
is asked the PR's author pushes no more: a push while the fix runs would make it refuse
("the branch moved"), and prflow's own push is not delivered back to it (the loopback
GitHub sends no webhooks).

Adding an event kind: add a member to :class:`Kind`, give it a weight in :data:`WEIGHTS`
and a branch in :func:`_draw`, then teach ``bench.conversation.drive`` to act it out and
``bench.conversation.figures`` to judge it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum


class Kind(StrEnum):
    accept = "accept"
    """A person agrees with the finding in its thread: one answer, verdict accepted."""
    rebut = "rebut"
    """A person argues the finding is intended: one answer, remembered as rebutted."""
    ask = "ask"
    """A person asks why in the thread: one answer, nothing recorded."""
    push_fix = "push_fix"
    """A push that changes the cited line of some open findings and leaves the others."""
    push_other = "push_other"
    """A push that changes no cited line: every open thread stays open."""
    redeliver = "redeliver"
    """GitHub redelivers an earlier delivery of this PR verbatim (same delivery id)."""
    poll_again = "poll_again"
    """The poller reports the PR's latest push under a delivery of its own."""
    command_ask = "command_ask"
    """A member writes ``/prflow ask <question>`` in a PR comment: one answer comment."""
    command_fix = "command_fix"
    """A member writes ``/prflow fix`` in a finding's thread: one commit pushed if the
    scripted edit keeps the tests green, nothing pushed if it breaks one (``Event.breaks``)."""


REPLIES = frozenset({Kind.accept, Kind.rebut, Kind.ask})
PUSHES = frozenset({Kind.push_fix, Kind.push_other})
COMMANDS = frozenset({Kind.command_ask, Kind.command_fix})
ANSWERED = REPLIES | COMMANDS
"""Events that count toward a PR's answers an hour (a fix counts, as the product says)."""
WEIGHTS: dict[Kind, float] = {
    Kind.accept: 0.17,
    Kind.rebut: 0.17,
    Kind.ask: 0.16,
    Kind.push_fix: 0.18,
    Kind.push_other: 0.07,
    Kind.redeliver: 0.15,
    Kind.poll_again: 0.10,
    Kind.command_ask: 0.08,
    Kind.command_fix: 0.05,
}
BREAKS_SHARE = 0.4
"""Share of fixes whose scripted edit breaks a test."""
VERDICT = {Kind.accept: "accepted", Kind.rebut: "rebutted", Kind.ask: "question"}


@dataclass(frozen=True)
class Event:
    pr: int
    index: int
    kind: Kind
    findings: tuple[int, ...] = ()
    """The finding replied to, or the findings a push fixes."""
    again: int | None = None
    """For a redelivery: the index of the event delivered again."""
    breaks: bool = False
    """For a fix: its scripted edit breaks the finding's test (nothing may be pushed)."""

    @property
    def nonce(self) -> str:
        """Opens a reply's text: names the reply to the scripted model and in the checks."""
        return f"bench-reply p{self.pr:03d} e{self.index:02d}"


@dataclass
class PrScript:
    number: int
    findings: int
    events: list[Event] = field(default_factory=list)


@dataclass
class Script:
    prs: list[PrScript]
    order: list[tuple[int, int]]
    """(pr, event index) in global delivery order: each PR's events stay in order."""
    worker_kills: list[int]
    """Global delivery counts after which the worker is SIGKILLed."""
    server_kill: int | None
    """Global delivery count after which the Temporal server is SIGKILLed and restarted."""


def draw(seed: int, prs: int, events: int, worker_kills: int = 3, server_kills: int = 1) -> Script:
    """The whole run's script; the same seed draws the same script."""
    rng = random.Random(seed)
    scripts = [_pr_script(rng, number, events) for number in range(prs)]
    order = _interleave(rng, scripts)
    total = len(order)
    points = rng.sample(range(max(total // 10, 1), max(total * 9 // 10, 2)), k=worker_kills + 1)
    server = points.pop() if server_kills else None
    return Script(scripts, order, sorted(points[:worker_kills]), server)


def _pr_script(rng: random.Random, number: int, events: int) -> PrScript:
    script = PrScript(number=number, findings=rng.randint(2, 4))
    fixed: set[int] = set()
    pushed = False
    answered = 0
    for index in range(events):
        kind = _draw(rng, script, fixed, pushed, answered)
        event = _event(rng, script, index, kind, fixed)
        if kind in PUSHES:
            pushed = True
            fixed |= set(event.findings)
        if kind in ANSWERED:
            answered += 1
        script.events.append(event)
    return script


def _draw(
    rng: random.Random, script: PrScript, fixed: set[int], pushed: bool, answered: int
) -> Kind:
    allowed = dict(WEIGHTS)
    fixing = any(e.kind == Kind.command_fix for e in script.events)
    if not script.events:
        allowed.pop(Kind.redeliver)
    if not pushed or fixing:  # after a fix the poller would report prflow's own push
        allowed.pop(Kind.poll_again)
    if len(fixed) >= script.findings - 1 or fixing:  # leave at least one finding standing
        allowed.pop(Kind.push_fix)
    if fixing:  # one fix a PR, and no push that would race it
        allowed.pop(Kind.push_other)
        allowed.pop(Kind.command_fix)
    if answered >= 9:  # under the per-PR limit of 10 answers an hour
        for kind in ANSWERED:
            allowed.pop(kind, None)
    kinds = list(allowed)
    return rng.choices(kinds, weights=[allowed[k] for k in kinds])[0]


def _event(rng: random.Random, script: PrScript, index: int, kind: Kind, fixed: set[int]) -> Event:
    standing = [f for f in range(script.findings) if f not in fixed]
    if kind in REPLIES:
        return Event(script.number, index, kind, (rng.randrange(script.findings),))
    if kind == Kind.push_fix:
        count = rng.randint(1, len(standing) - 1)
        return Event(script.number, index, kind, tuple(sorted(rng.sample(standing, count))))
    if kind == Kind.redeliver:
        return Event(script.number, index, kind, again=rng.randrange(index))
    if kind == Kind.command_fix:
        breaks = rng.random() < BREAKS_SHARE
        return Event(script.number, index, kind, (rng.choice(standing),), breaks=breaks)
    return Event(script.number, index, kind)


def _interleave(rng: random.Random, scripts: list[PrScript]) -> list[tuple[int, int]]:
    """A global order in which PRs take turns at random, each PR's events in order."""
    left = {s.number: 0 for s in scripts if s.events}
    order: list[tuple[int, int]] = []
    lengths = {s.number: len(s.events) for s in scripts}
    while left:
        number = rng.choice(sorted(left))
        order.append((number, left[number]))
        left[number] += 1
        if left[number] == lengths[number]:
            del left[number]
    return order
