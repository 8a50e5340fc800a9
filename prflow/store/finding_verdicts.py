"""What people made of prflow's findings, per PR: the memory behind rebuttals and stats.

The conversation records a verdict when a person answers a finding (accepted
or rebutted) and when a push fixes it (fixed); a later verdict on the same
finding replaces the earlier one. The review reads the rebutted fingerprints
of its PR and does not raise them again.
"""

from __future__ import annotations

import json
from collections import Counter

from sqlalchemy import select

from prflow.store.database import engine_for
from prflow.store.schema import FindingVerdictRow, ReviewMarkRow, utc_now
from prflow.store.upsert import dialect_insert

VERDICTS = ("accepted", "rebutted", "fixed")
"""Recorded verdicts; a question records nothing (the finding stays as it was)."""


def record_verdict(
    db_url: str,
    repo: str,
    pr_number: int,
    fingerprint: str,
    verdict: str,
    *,
    dimension: str = "",
    head_sha: str | None = None,
) -> None:
    """Remember ``verdict`` on the finding ``fingerprint`` of ``repo#pr_number``."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")
    values = {
        "repo": repo,
        "pr_number": pr_number,
        "fingerprint": fingerprint,
        "dimension": dimension[:128] or "unknown",
        "verdict": verdict,
        "head_sha": head_sha,
        "updated_at": utc_now(),
    }
    engine = engine_for(db_url)
    statement = dialect_insert(engine.dialect.name)(FindingVerdictRow).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=["repo", "pr_number", "fingerprint"],
        set_={k: v for k, v in values.items() if k not in ("repo", "pr_number", "fingerprint")},
    )
    with engine.begin() as connection:
        connection.execute(statement)


def verdicts_of(db_url: str, repo: str, pr_number: int) -> dict[str, str]:
    """Fingerprint → verdict for every judged finding of the PR."""
    with engine_for(db_url).connect() as connection:
        rows = connection.execute(
            select(FindingVerdictRow.fingerprint, FindingVerdictRow.verdict).where(
                FindingVerdictRow.repo == repo, FindingVerdictRow.pr_number == pr_number
            )
        ).all()
    return {row.fingerprint: row.verdict for row in rows}


def rebutted_fingerprints(db_url: str, repo: str, pr_number: int) -> list[str]:
    return sorted(f for f, v in verdicts_of(db_url, repo, pr_number).items() if v == "rebutted")


def finding_stats(db_url: str, repo: str | None = None) -> list[dict[str, object]]:
    """Per repository and dimension: findings accepted, rebutted, fixed, and left open.

    Open = posted by the last review of a PR (``review_marks``) and judged by no one yet;
    those have no dimension recorded and are counted under ``(not judged)``."""
    counts: Counter[tuple[str, str, str]] = Counter()
    judged: dict[tuple[str, int], set[str]] = {}
    with engine_for(db_url).connect() as connection:
        query = select(FindingVerdictRow)
        marks = select(ReviewMarkRow.repo, ReviewMarkRow.pr_number, ReviewMarkRow.fingerprints)
        if repo is not None:
            query = query.where(FindingVerdictRow.repo == repo)
            marks = marks.where(ReviewMarkRow.repo == repo)
        for row in connection.execute(query).all():
            counts[(row.repo, row.dimension, row.verdict)] += 1
            judged.setdefault((row.repo, row.pr_number), set()).add(row.fingerprint)
        for mark in connection.execute(marks).all():
            posted = set(json.loads(mark.fingerprints))
            left = posted - judged.get((mark.repo, mark.pr_number), set())
            counts[(mark.repo, "(not judged)", "open")] += len(left)
    keys = sorted({(r, d) for r, d, _ in counts})
    return [
        {
            "repo": r,
            "dimension": d,
            **{v: counts[(r, d, v)] for v in (*VERDICTS, "open")},
        }
        for r, d in keys
        if any(counts[(r, d, v)] for v in (*VERDICTS, "open"))
    ]
