"""JUnit XML (pytest ``--junitxml``, jest-junit, vitest's junit reporter) to per-test outcomes.

All three write ``<testsuites>/<testsuite>/<testcase classname name time>``
with a ``<failure>``, ``<error>`` or ``<skipped>`` child when the test did not
pass. The id is ``classname::name``, the same across runs of one runner; the
test's file comes from a ``file`` attribute where the runner writes one
(pytest's ``xunit1`` family, jest-junit's ``addFileAttribute``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from prflow.test_runs.models import Outcome, TestCounts, TestOutcome

MAX_MESSAGE_CHARS = 2_000


class ReportError(ValueError):
    """The file is not a JUnit report."""


def parse_junit(xml: bytes) -> list[TestOutcome]:
    """Every test case of a JUnit report, in file order (a repeated id keeps its worst run)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ReportError(f"not a JUnit XML report: {exc}") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise ReportError(f"not a JUnit XML report: root element <{root.tag}>")
    found: dict[str, TestOutcome] = {}
    for case in root.iter("testcase"):
        outcome = _outcome_of(case)
        if outcome.id not in found or outcome.failing:
            found[outcome.id] = outcome
    return list(found.values())


def _outcome_of(case: ET.Element) -> TestOutcome:
    classname = case.get("classname", "")
    name = case.get("name", "")
    test_id = f"{classname}::{name}" if classname else name
    where = case.get("file", "")
    try:
        seconds = float(case.get("time") or 0)
    except ValueError:
        seconds = 0.0
    for tag, outcome in (("failure", Outcome.failed), ("error", Outcome.error)):
        child = case.find(tag)
        if child is not None:
            message = child.get("message") or (child.text or "")
            return TestOutcome(
                id=test_id,
                outcome=outcome,
                seconds=seconds,
                message=message[:MAX_MESSAGE_CHARS],
                file=where,
            )
    skipped = case.find("skipped")
    if skipped is not None:
        message = skipped.get("message", "")
        return TestOutcome(
            id=test_id, outcome=Outcome.skipped, seconds=seconds, message=message, file=where
        )
    return TestOutcome(id=test_id, outcome=Outcome.passed, seconds=seconds, file=where)


def count(outcomes: Iterable[TestOutcome]) -> TestCounts:
    counts = TestCounts()
    for o in outcomes:
        if o.outcome == Outcome.passed:
            counts.passed += 1
        elif o.outcome == Outcome.failed:
            counts.failed += 1
        elif o.outcome == Outcome.error:
            counts.errors += 1
        else:
            counts.skipped += 1
    return counts
