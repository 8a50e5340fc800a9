"""Pull requests of an organisation updated since a moment: what a poll delivers.

One request lists the organisation's repositories; per repository, PRs are
listed most recently updated first and the scan stops at the first one older
than ``since``, so a poll costs a page or two per active repository.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from activities.github.client import github_client
from activities.github.errors import classified_errors
from activities.heartbeats import in_thread_heartbeating
from prflow.pr_identifier import PullRequestRef
from prflow.queue.events import EventKind, PrEvent


async def updated_pull_events(
    org: str, since: datetime, on_progress: Callable[[], None] = lambda: None
) -> list[PrEvent]:
    """One queue event per PR of ``org`` updated at or after ``since``."""
    repos = await in_thread_heartbeating(lambda: _repositories(org))
    events: list[PrEvent] = []
    for repo in repos:
        events += await in_thread_heartbeating(functools.partial(_events, repo, since))
        on_progress()
    return events


def _repositories(org: str) -> list[Any]:
    from github.PaginatedList import PaginatedList
    from github.Repository import Repository

    with classified_errors(
        action=f"listing the repositories of {org}",
        missing=f"Organisation {org} was not found",
        permission="read access to the organisation's repositories",
    ):
        client = github_client()
        # Listed straight away: Organization.get_repos() would first fetch the org itself.
        path = f"/orgs/{quote(org, safe='')}/repos"
        listed = PaginatedList(Repository, client.requester, path, None)
        return [repo for repo in listed if not repo.archived]


def _events(repo: Any, since: datetime) -> list[PrEvent]:
    events: list[PrEvent] = []
    with classified_errors(
        action=f"listing pull requests of {repo.full_name}",
        missing=f"Repository {repo.full_name} was not found",
        permission="read access to the repository's pull requests",
    ):
        for pull in repo.get_pulls(state="all", sort="updated", direction="desc"):
            if pull.updated_at < since:
                break
            event = _event(repo.owner.login, repo.name, pull, since)
            if event is not None:
                events.append(event)
    return events


def _event(owner: str, name: str, pull: Any, since: datetime) -> PrEvent | None:
    ref = PullRequestRef(owner=owner, repo=name, number=pull.number)
    if pull.state == "open":
        if pull.draft:
            return None
        return PrEvent(
            delivery_id=f"poll:{ref.slug}@{pull.head.sha}",
            kind=EventKind.head,
            pr=ref,
            head_sha=pull.head.sha,
            updated_at=pull.updated_at,
            source="poll",
        )
    if pull.closed_at is not None and pull.closed_at >= since:
        return PrEvent(
            delivery_id=f"poll:{ref.slug}:closed",
            kind=EventKind.closed,
            pr=ref,
            updated_at=pull.updated_at,
            source="poll (closed)",
        )
    return None
