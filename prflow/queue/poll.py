"""Polling mode, for organisations that cannot send webhooks: what one poll asks and finds.

A Temporal Schedule starts the ``queue_poll`` workflow every few minutes. Each
run lists the PRs updated since the previous successful run (its result,
handed over by the Schedule as the last completion result) and delivers one
event per PR, exactly as the webhook receiver would. Delivery ids name the
PR and its head, so seeing a PR again in the next poll changes nothing.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from prflow.errors import UserError
from prflow.queue.state import QueueNames

FIRST_LOOKBACK = timedelta(days=1)
OVERLAP = timedelta(minutes=1)
"""Each poll reaches this far before the previous one ended: GitHub's ``updated_at`` has
one-second precision and its clock is not ours. What is seen twice dedupes by delivery id."""


class PollRequest(BaseModel):
    """Input of every ``queue_poll`` run a Schedule starts."""

    org: str
    queues: QueueNames
    first_lookback_seconds: float = Field(
        default=FIRST_LOOKBACK.total_seconds(), gt=0, description="How far the first poll looks"
    )


class PollQuery(PollRequest):
    since: datetime | None = None


class PollOutcome(BaseModel):
    """Result of one poll; the next run starts from ``polled_until``."""

    org: str
    since: datetime
    polled_until: datetime
    delivered: int


def poll_schedule_id(org: str) -> str:
    return f"queue-poll:{org}"


_EVERY = re.compile(r"(\d+)\s*([smhd])")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MIN_INTERVAL = timedelta(minutes=1)


def parse_every(text: str) -> timedelta:
    """``--every 5m`` as a timedelta (s, m, h, d); at least a minute, to spare the API."""
    match = _EVERY.fullmatch(text.strip().lower())
    if match is None:
        raise UserError(f"--every {text!r} is not understood: use a duration such as 5m, 1h or 1d")
    every = timedelta(seconds=int(match[1]) * _SECONDS[match[2]])
    if every < MIN_INTERVAL:
        raise UserError(f"--every {text} is too often: poll at most once a minute (--every 1m)")
    return every
