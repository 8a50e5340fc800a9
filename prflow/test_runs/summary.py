"""The runner's own summary line (pytest, jest, vitest, unittest), read from a run's output.

When a test command gives no per-test report (``make test``, ``tox -e py``, a
pytest started with its own ``--junitxml``), what it printed is what is left
to compare: ``3 failed, 120 passed in 4.2s`` (pytest), ``Tests: 1 failed, 12
passed, 13 total`` (jest), ``Tests  1 failed | 12 passed (13)`` (vitest),
``Ran 13 tests in 0.4s`` then ``FAILED (failures=1)`` (unittest, Django). A
command that chains several runs (``pytest a && pytest b``) prints several
lines; their counts add up. ``no tests ran`` is a summary too: zero tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from prflow.test_runs.models import TestCounts

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
PYTEST_LINE = re.compile(
    r"^[=\s]*(?P<body>(?:\d+ \w+(?:, )?)+|no tests ran) in [\d.]+m?s(?: \([\d:]+\))?[=\s]*$"
)
PYTEST_PART = re.compile(r"(\d+) (\w+)")
JEST_LINE = re.compile(r"^Tests:\s+(?P<body>.*\d+ total)\s*$")
JEST_SUITES = re.compile(r"^Test Suites:\s+(?P<body>.*\d+ total)\s*$")
VITEST_LINE = re.compile(r"^\s*Tests\s+(?P<body>(?:\d+ \w+(?: \| )?)+)\s*\(\d+\)\s*$")
VITEST_FILES = re.compile(r"^\s*Test Files\s+(?P<body>(?:\d+ \w+(?: \| )?)+)\s*\(\d+\)\s*$")
UNITTEST_RAN = re.compile(r"^Ran (?P<n>\d+) tests? in [\d.]+s$")
UNITTEST_END = re.compile(r"^(?P<word>OK|FAILED)(?: \((?P<body>[^)]*)\))?$")
NO_TESTS = re.compile(r"^(?:No tests found|No test files found)", re.MULTILINE)

WORDS = {
    "passed": "passed",
    "xpassed": "passed",
    "failed": "failed",
    "error": "errors",
    "errors": "errors",
    "skipped": "skipped",
    "xfailed": "skipped",
    "todo": "skipped",
    "pending": "skipped",
}
"""Summary words and the count they add to (an expected failure is not a failure)."""


@dataclass(frozen=True)
class RunnerSummary:
    """What the runner's summary lines say: the runner, its counts, the lines themselves."""

    runner: str
    counts: TestCounts
    lines: list[str] = field(default_factory=list)

    @property
    def tests(self) -> int:
        return self.counts.total


def _add(counts: TestCounts, body: str, separator: str = ",") -> None:
    for part in body.split(separator):
        match = PYTEST_PART.search(part.strip())
        if match is None:
            continue
        key = WORDS.get(match.group(2))
        if key is not None:
            setattr(counts, key, getattr(counts, key) + int(match.group(1)))


def parse_summary(output: str) -> RunnerSummary | None:
    """The summary of the runs in ``output``, or None when no runner printed one."""
    text = ANSI.sub("", output)
    lines = [line.rstrip() for line in text.splitlines()]
    for parse in (_pytest, _jest, _vitest, _unittest):
        found = parse(lines)
        if found is not None:
            return found
    if NO_TESTS.search(text):
        return RunnerSummary(runner="unknown", counts=TestCounts(), lines=["no tests found"])
    return None


def _pytest(lines: list[str]) -> RunnerSummary | None:
    counts = TestCounts()
    seen: list[str] = []
    for line in lines:
        match = PYTEST_LINE.match(line)
        if match is None:
            continue
        seen.append(line.strip("= "))
        if match.group("body") != "no tests ran":
            _add(counts, match.group("body"))
    return RunnerSummary("pytest", counts, seen) if seen else None


def _jest(lines: list[str]) -> RunnerSummary | None:
    counts = TestCounts()
    seen: list[str] = []
    suites_failed = 0
    for line in lines:
        match = JEST_LINE.match(line.strip())
        if match is not None:
            seen.append(line.strip())
            _add(counts, match.group("body"))
            continue
        suites = JEST_SUITES.match(line.strip())
        if suites is not None:
            failed = re.search(r"(\d+) failed", suites.group("body"))
            suites_failed += int(failed.group(1)) if failed else 0
    if not seen:
        return None
    if suites_failed and not counts.failed:
        counts.errors += suites_failed  # a test file that failed to load runs no test
    return RunnerSummary("jest", counts, seen)


def _vitest(lines: list[str]) -> RunnerSummary | None:
    counts = TestCounts()
    seen: list[str] = []
    files_failed = 0
    for line in lines:
        match = VITEST_LINE.match(line)
        if match is not None:
            seen.append(line.strip())
            _add(counts, match.group("body"), "|")
            continue
        files = VITEST_FILES.match(line)
        if files is not None:
            failed = re.search(r"(\d+) failed", files.group("body"))
            files_failed += int(failed.group(1)) if failed else 0
    if not seen:
        return None
    if files_failed and not counts.failed:
        counts.errors += files_failed
    return RunnerSummary("vitest", counts, seen)


def _unittest(lines: list[str]) -> RunnerSummary | None:
    counts = TestCounts()
    seen: list[str] = []
    for n, line in enumerate(lines):
        ran = UNITTEST_RAN.match(line.strip())
        if ran is None:
            continue
        end = next(
            (m for m in (UNITTEST_END.match(x.strip()) for x in lines[n + 1 : n + 4]) if m), None
        )
        if end is None:
            continue
        seen.append(f"{line.strip()} {end.group(0)}")
        parts = dict(
            (k.strip(), int(v)) for k, v in re.findall(r"(\w+)=(\d+)", end.group("body") or "")
        )
        bad = parts.get("failures", 0) + parts.get("errors", 0)
        skipped = parts.get("skipped", 0) + parts.get("expected_failures", 0)
        counts.failed += parts.get("failures", 0) + parts.get("unexpected_successes", 0)
        counts.errors += parts.get("errors", 0)
        counts.skipped += skipped
        counts.passed += max(0, int(ran.group("n")) - bad - skipped)
    return RunnerSummary("unittest", counts, seen) if seen else None
