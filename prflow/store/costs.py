"""Roll ledger spend up into the figures ``prflow costs`` shows.

The database groups attempts into :class:`SpendSlice` rows (one per workflow,
kind, phase and model); this module, which does no I/O, adds those slices up
per workflow kind / phase / model, per workflow id, and overall.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar

from pydantic import BaseModel, Field

from prflow.agent.state import run_of
from prflow.errors import UserError
from prflow.llm.usage import Usage

USD_DECIMALS = 8


class Spend(Usage):
    """Attempts, tokens and dollars of some set of LLM attempts.

    ``unknown_attempts`` were sent but their worker died before the answer was
    recorded; the API may have billed them, up to ``unknown_worst_usd``.
    ``reused_attempts`` were answered from a kept answer at $0 (a retry whose
    earlier attempt had been answered, or a question the run had already asked).
    """

    attempts: int = 0
    failed_attempts: int = 0
    unknown_attempts: int = 0
    unknown_worst_usd: float = 0.0
    reused_attempts: int = 0
    usd: float = 0.0

    def absorb(self, other: Spend) -> None:
        """Add ``other``'s figures to this one."""
        self.add_usage(other)
        self.attempts += other.attempts
        self.failed_attempts += other.failed_attempts
        self.unknown_attempts += other.unknown_attempts
        self.reused_attempts += other.reused_attempts
        self.unknown_worst_usd = round(self.unknown_worst_usd + other.unknown_worst_usd, 8)
        self.usd = round(self.usd + other.usd, USD_DECIMALS)


class SpendSlice(Spend):
    """Spend of one workflow in one phase with one model, as the ledger query returns it."""

    workflow_id: str
    workflow_kind: str
    phase: str
    model: str
    repo: str | None = None
    pr_number: int | None = None


class PhaseSpend(Spend):
    """Spend of one (workflow kind, phase, model) across all workflows."""

    workflow_kind: str
    phase: str
    model: str


class WorkflowSpend(Spend):
    """Spend of one workflow id across its phases, models and runs."""

    workflow_id: str
    workflow_kind: str
    repo: str | None = None
    pr_number: int | None = None


class PhaseCut(BaseModel):
    """What ``prflow costs`` says about one cut: the run, the phase, the cap and why."""

    workflow_id: str
    workflow_kind: str
    phase: str
    agent: str
    model: str
    cap: str
    reason: str
    repo: str | None = None
    pr_number: int | None = None


class CostReport(BaseModel):
    """Everything ``prflow costs`` prints; its JSON form is the ``--json`` output."""

    by_phase: list[PhaseSpend]
    by_workflow: list[WorkflowSpend]
    totals: Spend
    cuts: list[PhaseCut] = Field(
        default_factory=list, description="Agents a cap stopped: their phase, the cap and why"
    )


Row = TypeVar("Row", bound=Spend)

GROUPINGS = ("repo", "pr", "kind", "phase", "model")
"""What ``prflow costs --by`` groups on."""


class GroupSpend(Spend):
    """Spend of one value of a grouping: a repository, a PR, a kind, a phase or a model."""

    key: str


def _group_key(piece: SpendSlice, by: str) -> str:
    if by == "repo":
        return piece.repo or "(no repository)"
    if by == "pr":
        if piece.repo is None or piece.pr_number is None:
            return "(no pull request)"
        return f"{piece.repo}#{piece.pr_number}"
    if by == "kind":
        return piece.workflow_kind
    if by == "phase":
        return f"{piece.workflow_kind}/{piece.phase}"
    return piece.model


def group_spend(slices: Iterable[SpendSlice], by: str) -> list[GroupSpend]:
    """Spend per value of ``by`` (repo, pr, kind, phase or model), most expensive first."""
    if by not in GROUPINGS:
        raise UserError(f"--by {by!r} is not a grouping; use one of: {', '.join(GROUPINGS)}")
    groups = _group(
        list(slices),
        key=lambda s: _group_key(s, by),
        start=lambda s: GroupSpend(key=_group_key(s, by)),
    )
    return sorted(groups, key=lambda g: (-g.usd, g.key))


def summarize(slices: Iterable[SpendSlice], cuts: Iterable[PhaseCut] = ()) -> CostReport:
    """Group slices per kind/phase/model and per workflow id, most expensive first; ``cuts``
    (agents a cap stopped) are passed through in order."""
    slice_list = list(slices)
    by_phase = _group(
        slice_list,
        key=lambda s: (s.workflow_kind, s.phase, s.model),
        start=lambda s: PhaseSpend(workflow_kind=s.workflow_kind, phase=s.phase, model=s.model),
    )
    by_workflow = _group(  # a run's child agents count toward the run
        slice_list,
        key=lambda s: run_of(s.workflow_id),
        start=lambda s: WorkflowSpend(
            workflow_id=run_of(s.workflow_id),
            workflow_kind=s.workflow_kind,
            repo=s.repo,
            pr_number=s.pr_number,
        ),
    )
    totals = Spend()
    for piece in slice_list:
        totals.absorb(piece)
    return CostReport(
        by_phase=sorted(by_phase, key=lambda r: (-r.usd, r.workflow_kind, r.phase, r.model)),
        by_workflow=sorted(by_workflow, key=lambda r: (-r.usd, r.workflow_id)),
        totals=totals,
        cuts=list(cuts),
    )


def _group(
    slices: list[SpendSlice],
    key: Callable[[SpendSlice], Hashable],
    start: Callable[[SpendSlice], Row],
) -> list[Row]:
    groups: dict[Hashable, Row] = {}
    for piece in slices:
        group_key = key(piece)
        if group_key not in groups:
            groups[group_key] = start(piece)
        groups[group_key].absorb(piece)
    return list(groups.values())


_DURATION = re.compile(r"(\d+)\s*([mhdw])")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: datetime, option: str = "--since") -> datetime:
    """Start of the reporting window: ``30m``/``24h``/``7d``/``2w`` before ``now``, or an ISO date.

    A date without a time means midnight UTC; a time without an offset is UTC.
    A duration reaching back before year 1 is a :class:`UserError`, not an overflow.
    """
    cleaned = text.strip().lower()
    duration = _DURATION.fullmatch(cleaned)
    if duration:
        amount, unit = int(duration.group(1)), duration.group(2)
        try:
            return now - timedelta(seconds=amount * _UNIT_SECONDS[unit])
        except OverflowError:
            raise UserError(
                f"{option} {text.strip()} reaches back before the year 1; use a shorter "
                f"duration such as 52w, or leave {option} out"
            ) from None
    try:
        if len(cleaned) == 10:
            day = date.fromisoformat(cleaned)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        moment = datetime.fromisoformat(text.strip())
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise UserError(
            f"{option} {text!r} is not understood: use a duration such as 24h, 7d or 2w, "
            "or an ISO date such as 2026-01-31"
        ) from None
