"""Where the last review of each pull request left off: its head and the findings it posted.

The sticky comment on GitHub carries the same state, so a run on a fresh
machine (a CI runner) still reviews incrementally; this table keeps it for
workers that share a database, and for PRs whose comment was deleted.
"""

from __future__ import annotations

import json

from sqlalchemy import select

from prflow.store.database import engine_for
from prflow.store.schema import ReviewMarkRow, utc_now
from prflow.store.upsert import dialect_insert


def record_review(
    db_url: str, repo: str, pr_number: int, head_sha: str, fingerprints: list[str], workflow_id: str
) -> None:
    """Remember the review of ``repo#pr_number`` at ``head_sha`` (replacing the previous one)."""
    values = {
        "repo": repo,
        "pr_number": pr_number,
        "head_sha": head_sha,
        "fingerprints": json.dumps(sorted(set(fingerprints))),
        "workflow_id": workflow_id,
        "updated_at": utc_now(),
    }
    engine = engine_for(db_url)
    insert = dialect_insert(engine.dialect.name)
    statement = insert(ReviewMarkRow).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=["repo", "pr_number"],
        set_={k: v for k, v in values.items() if k not in ("repo", "pr_number")},
    )
    with engine.begin() as connection:
        connection.execute(statement)


def last_review(db_url: str, repo: str, pr_number: int) -> tuple[str, list[str]] | None:
    """(head SHA, posted fingerprints) of the last review of the PR, or None."""
    with engine_for(db_url).connect() as connection:
        row = connection.execute(
            select(ReviewMarkRow.head_sha, ReviewMarkRow.fingerprints).where(
                ReviewMarkRow.repo == repo, ReviewMarkRow.pr_number == pr_number
            )
        ).first()
    if row is None:
        return None
    return row.head_sha, list(json.loads(row.fingerprints))
