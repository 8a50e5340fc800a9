"""Test failures read out of CI job logs, one parser per test runner.

A job log is whatever the runner printed, with GitHub's timestamps in front.
:func:`parse_failures` cleans it once and lets every parser look for its own
runner's shapes; a log with no recognisable failure yields an empty list, so
the caller can fall back to the check's own summary.
"""

from __future__ import annotations

from prflow.pr_tools.ci_logs.clean import clean_log
from prflow.pr_tools.ci_logs.go_test import parse_go_test
from prflow.pr_tools.ci_logs.jest import parse_jest
from prflow.pr_tools.ci_logs.models import Framework, TestFailure
from prflow.pr_tools.ci_logs.pytest import parse_pytest
from prflow.pr_tools.ci_logs.vitest import parse_vitest

__all__ = ["Framework", "TestFailure", "parse_failures"]

_PARSERS = (parse_pytest, parse_jest, parse_vitest, parse_go_test)


def parse_failures(log: str) -> list[TestFailure]:
    """Every failing test the log names, in the order the runners reported them."""
    lines = clean_log(log)
    found: list[TestFailure] = []
    seen: set[tuple[str, str]] = set()
    for parser in _PARSERS:
        for failure in parser(lines):
            key = (failure.framework, failure.test)
            if key not in seen:
                seen.add(key)
                found.append(failure)
    return found
