"""What one test run said, read from the best source it left: a JUnit report, else the
runner's summary line, else only its exit status."""

from __future__ import annotations

from dataclasses import dataclass, field

from prflow.test_runs.junit import ReportError, count, parse_junit
from prflow.test_runs.models import ResultBasis, TestCounts, TestOutcome
from prflow.test_runs.summary import parse_summary

TAIL_LINES = 12
TAIL_CHARS = 1_500


@dataclass
class RunResults:
    outcomes: list[TestOutcome]
    counts: TestCounts
    basis: ResultBasis
    summary: list[str] = field(default_factory=list)
    tests_found: int | None = None
    note: str = ""
    """Said about the report (unreadable) in the stored output."""


def read_results(report: bytes | None, output: str) -> RunResults:
    """Per-test outcomes when the JUnit report parses; else the summary line's counts; else
    nothing but the exit status (``tests_found`` None: cannot tell)."""
    note = ""
    summary = parse_summary(output)
    lines = summary.lines if summary is not None else []
    if report is not None:
        try:
            outcomes = parse_junit(report)
        except ReportError as exc:
            note = str(exc)
        else:
            counts = count(outcomes)
            return RunResults(outcomes, counts, ResultBasis.junit, lines, counts.total)
    if summary is not None:
        return RunResults([], summary.counts, ResultBasis.summary, lines, summary.tests, note)
    return RunResults([], TestCounts(), ResultBasis.exit_status, [], None, note)


def output_tail(output: str) -> str:
    """The last lines of a run's output, for a one-look report."""
    lines = [line for line in output.rstrip().splitlines() if line.strip()]
    return "\n".join(lines[-TAIL_LINES:])[-TAIL_CHARS:]
