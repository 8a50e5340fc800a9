"""Failures read out of real runner output, as GitHub Actions serves it as a job log."""

from __future__ import annotations

import pytest

from prflow.pr_tools.ci_logs import Framework, TestFailure, parse_failures
from tests.pr_tools.actions_log import as_actions_log, sample


def _rows(failures: list[TestFailure]) -> list[tuple[str, str, str]]:
    return [(f.test, f.location, f.rerun) for f in failures]


@pytest.mark.parametrize("name", ["pytest_default.log", "pytest_verbose.log"])
def test_pytest_failures_name_node_location_message_and_command(name: str) -> None:
    failures = parse_failures(as_actions_log(sample(name), "pytest"))

    assert {f.framework for f in failures} == {Framework.pytest}
    assert _rows(failures) == [
        (
            "tests/unit/test_calc.py::test_add_is_wrong_on_purpose",
            "tests/unit/test_calc.py:11",
            "pytest tests/unit/test_calc.py::test_add_is_wrong_on_purpose -v",
        ),
        (
            "tests/unit/test_calc.py::test_divide_by_zero_raises_value_error",
            "tests/unit/test_calc.py:15",
            "pytest tests/unit/test_calc.py::test_divide_by_zero_raises_value_error -v",
        ),
        (
            "tests/unit/test_calc.py::test_add_table[2-3-6]",
            "tests/unit/test_calc.py:20",
            "pytest 'tests/unit/test_calc.py::test_add_table[2-3-6]' -v",
        ),
        (
            "tests/unit/test_calc.py::TestGreeting::test_greets_by_name",
            "tests/unit/test_calc.py:26",
            "pytest tests/unit/test_calc.py::TestGreeting::test_greets_by_name -v",
        ),
        (
            "tests/test_errors.py::test_uses_broken_fixture",
            "tests/test_errors.py:6",
            "pytest tests/test_errors.py::test_uses_broken_fixture -v",
        ),
    ]
    messages = [f.message for f in failures]
    assert messages[0].startswith("assert 4 == 5")
    # The summary line cuts this message ("Zero..."); the section has it whole.
    assert messages[1] == "ZeroDivisionError: division by zero"
    assert messages[3].startswith("AssertionError: greeting lost its comma")
    assert messages[4] == "RuntimeError: database is not reachable"


def test_pytest_without_a_summary_still_reports_its_sections() -> None:
    log = sample("pytest_default.log").split("short test summary info")[0]
    failures = parse_failures(log)
    assert [f.test for f in failures][:2] == [
        "tests/test_errors.py::test_uses_broken_fixture",
        "tests/unit/test_calc.py::test_add_is_wrong_on_purpose",
    ]
    assert failures[1].location == "tests/unit/test_calc.py:11"


def test_jest_failures_keep_describe_path_and_point_into_the_test_file() -> None:
    failures = parse_failures(as_actions_log(sample("jest.log"), "npx jest"))

    assert {f.framework for f in failures} == {Framework.jest}
    assert _rows(failures) == [
        (
            "cart total › counts quantities",
            "src/__tests__/cart.test.js:9",
            "npx jest src/__tests__/cart.test.js -t '^cart total counts quantities$'",
        ),
        (
            "discounts › percent › rejects more than 100%",
            "src/__tests__/cart.test.js:16",
            "npx jest src/__tests__/cart.test.js -t '^discounts percent rejects more than 100%$'",
        ),
        (
            "top-level object equality",
            "src/__tests__/cart.test.js:22",
            "npx jest src/__tests__/cart.test.js -t '^top-level object equality$'",
        ),
    ]
    assert failures[0].message.splitlines() == [
        "expect(received).toBe(expected) // Object.is equality",
        "Expected: 4",
        "Received: 2",
    ]
    assert failures[1].message == "RangeError: discount above 100%"


def test_vitest_failures_from_coloured_output() -> None:
    failures = parse_failures(as_actions_log(sample("vitest.log"), "npx vitest run"))

    assert {f.framework for f in failures} == {Framework.vitest}
    assert _rows(failures) == [
        (
            "src/__tests__/math.spec.ts > clamp > clamps above the top",
            "src/__tests__/math.spec.ts:12",
            "npx vitest run src/__tests__/math.spec.ts -t '^clamp clamps above the top$'",
        ),
        (
            "src/__tests__/math.spec.ts > clamp > nested > throws on inverted bounds",
            "src/__tests__/math.spec.ts:16",
            "npx vitest run src/__tests__/math.spec.ts "
            "-t '^clamp nested throws on inverted bounds$'",
        ),
    ]
    assert failures[0].message == "AssertionError: expected 10 to be 15 // Object.is equality"


@pytest.mark.parametrize("name", ["gotest.log", "gotest_verbose.log"])
def test_go_failures_report_leaf_subtests_with_their_package(name: str) -> None:
    failures = parse_failures(as_actions_log(sample(name), "go test ./..."))

    assert {f.framework for f in failures} == {Framework.go}
    package = "example.com/shop/internal/mathx"
    assert [(f.test, f.location, f.message) for f in failures] == [
        ("TestAbsNegative", "mathx_test.go:13", "Abs(-3) = -3, want 3"),
        ("TestAbsTable/minus_one", "mathx_test.go:25", "Abs(-1) = -1, want 1"),
        (
            "TestPanics",
            "/tmp/work/i9logs/go/internal/mathx/mathx_test.go:33",
            "panic: assignment to entry in nil map",
        ),
    ]
    assert failures[1].rerun == f"go test -run '^TestAbsTable$/^minus_one$' -v {package}"


def test_logs_of_several_runners_in_one_job_yield_all_failures() -> None:
    log = as_actions_log(sample("pytest_default.log") + "\n" + sample("gotest.log"), "make test")
    frameworks = [f.framework for f in parse_failures(log)]
    assert frameworks.count(Framework.pytest) == 5
    assert frameworks.count(Framework.go) == 3


def test_a_log_without_test_failures_yields_nothing() -> None:
    log = as_actions_log("npm ERR! missing script: lint\nError: Process completed", "npm run lint")
    assert parse_failures(log) == []


def test_passing_runs_yield_nothing() -> None:
    passing = "ok  \texample.com/shop/cart\t0.004s\n===== 3 passed in 0.01s =====\n"
    assert parse_failures(as_actions_log(passing, "make test")) == []
