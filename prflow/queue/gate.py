"""The per-organisation cap on running jobs, shared fairly between repositories.

A PR's workflow holds a slot of its organisation's gate while its jobs run.
When slots are short, the next slot goes to the repository with the fewest
slots in use, and among those to the one served longest ago, so a repository
with fifty open PRs takes turns with one that has a single PR instead of
queueing it behind all fifty. Pure bookkeeping: the gate workflow
(:mod:`workflows.queue_gate`) applies it and tells holders when they are granted.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, Field

LEASE = timedelta(hours=6)
"""A holder that never released (its workflow was terminated) loses its slot after this."""

SLOT_GRANTED = "slot_granted"
"""The signal the org gate sends a queue workflow it gave a slot (declared once: the gate
cannot import the queue workflow that imports it)."""


class SlotAsk(BaseModel):
    """What a PR workflow asks for: a slot of ``org``'s gate for ``holder`` (its own id)."""

    org: str
    repo: str
    holder: str = Field(description="Workflow id of the PR's queue workflow")


class SlotRequest(SlotAsk):
    """The ask as the gate receives it, with the org cap the asking worker is configured with."""

    capacity: int = Field(ge=1, description="The org cap in force (the newest request's wins)")


class Lease(BaseModel):
    repo: str
    granted_at: datetime


class GateState(BaseModel):
    """Holders, waiters and each repository's last turn; input of each continued run."""

    org: str
    capacity: int = Field(ge=1)
    holders: dict[str, Lease] = Field(default_factory=dict)
    waiting: list[SlotRequest] = Field(default_factory=list)
    last_turn: dict[str, int] = Field(default_factory=dict)
    turns: int = 0

    def request(self, request: SlotRequest) -> None:
        """Queue ``request`` (asking again while waiting or holding changes nothing)."""
        self.capacity = request.capacity
        if request.holder in self.holders:
            return
        if all(waiter.holder != request.holder for waiter in self.waiting):
            self.waiting.append(request)

    def release(self, holder: str) -> None:
        self.holders.pop(holder, None)
        self.waiting = [w for w in self.waiting if w.holder != holder]

    def expire(self, now: datetime, lease: timedelta = LEASE) -> list[str]:
        """Free slots held longer than ``lease``; returns who lost theirs."""
        stale = [h for h, held in self.holders.items() if now - held.granted_at > lease]
        for holder in stale:
            del self.holders[holder]
        return stale

    def grant(self, now: datetime) -> list[str]:
        """Hand free slots to waiters, repository by repository; returns who was granted."""
        granted: list[str] = []
        while self.waiting and len(self.holders) < self.capacity:
            chosen = min(self.waiting, key=self._turn_order)
            self.waiting.remove(chosen)
            self.holders[chosen.holder] = Lease(repo=chosen.repo, granted_at=now)
            self.turns += 1
            self.last_turn[chosen.repo] = self.turns
            granted.append(chosen.holder)
        return granted

    def _turn_order(self, waiter: SlotRequest) -> tuple[int, int, int]:
        in_use = sum(1 for held in self.holders.values() if held.repo == waiter.repo)
        return (in_use, self.last_turn.get(waiter.repo, 0), self.waiting.index(waiter))

    @property
    def idle(self) -> bool:
        return not self.holders and not self.waiting

    def forget_idle_repos(self) -> None:
        """Drop turn records of repositories with nobody holding or waiting (bounds the state)."""
        active = {held.repo for held in self.holders.values()}
        active |= {waiter.repo for waiter in self.waiting}
        self.last_turn = {repo: turn for repo, turn in self.last_turn.items() if repo in active}


def gate_workflow_id(org: str, task_queue: str) -> str:
    """``queue-gate:prflow:acme``: one gate per organisation and deployment (its main queue)."""
    return f"queue-gate:{task_queue}:{org}"
