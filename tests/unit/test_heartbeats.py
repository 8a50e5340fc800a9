"""The heartbeat thread of a long sync activity survives a beat the worker was too busy to
take: it keeps beating, so the heartbeat timeout does not expire on work still running."""

from __future__ import annotations

import time

import pytest
from temporalio.testing import ActivityEnvironment

from activities import heartbeats


def test_a_beat_that_times_out_is_skipped_and_the_next_ones_go_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(heartbeats, "HEARTBEAT_EVERY_SECONDS", 0.05)
    attempts: list[str] = []

    def on_heartbeat(*details: object) -> None:
        attempts.append("late" if not attempts else "taken")
        if len(attempts) == 1:
            raise TimeoutError  # what the SDK raises when the loop takes over 10 s

    @heartbeats.heartbeating
    def long_work() -> str:
        time.sleep(0.6)
        return "done"

    environment = ActivityEnvironment()
    environment.on_heartbeat = on_heartbeat
    assert environment.run(long_work) == "done"
    assert attempts[0] == "late" and attempts.count("taken") >= 3, attempts
