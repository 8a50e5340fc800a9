"""JUnit parsing for pytest/jest/vitest reports, before/after compare, env specs."""

from __future__ import annotations

import pytest

from prflow.test_runs.command import runner_command
from prflow.test_runs.compare import compare
from prflow.test_runs.environment import ProjectKind, detect
from prflow.test_runs.junit import ReportError, count, parse_junit
from prflow.test_runs.models import Outcome, TestOutcome

JEST_JUNIT = b"""<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="1" errors="0" time="1.2">
  <testsuite name="cart" errors="0" failures="1" skipped="1"
             timestamp="2026-01-01T00:00:00" time="1.1" tests="3">
    <testcase classname="cart adds an item" name="cart adds an item" time="0.004"></testcase>
    <testcase classname="cart totals" name="cart totals" time="0.01">
      <failure>Error: expect(received).toBe(expected)
Expected: 5
Received: 4</failure>
    </testcase>
    <testcase classname="cart later" name="cart later" time="0"><skipped/></testcase>
  </testsuite>
</testsuites>
"""

VITEST_JUNIT = b"""<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="2" failures="0" errors="1" time="0.5">
    <testsuite name="src/cart.test.ts" timestamp="2026-01-01T00:00:00" hostname="h"
               tests="2" failures="0" errors="1" skipped="0" time="0.01">
        <testcase classname="src/cart.test.ts" name="cart &gt; adds" time="0.001">
        </testcase>
        <testcase classname="src/cart.test.ts" name="cart &gt; loads" time="0.002">
            <error message="boom" type="Error">Error: boom</error>
        </testcase>
    </testsuite>
</testsuites>
"""


def test_jest_junit_reports_parse_into_per_test_outcomes() -> None:
    outcomes = parse_junit(JEST_JUNIT)
    assert [(o.id, o.outcome) for o in outcomes] == [
        ("cart adds an item::cart adds an item", Outcome.passed),
        ("cart totals::cart totals", Outcome.failed),
        ("cart later::cart later", Outcome.skipped),
    ]
    assert "Expected: 5" in outcomes[1].message
    assert (count(outcomes).passed, count(outcomes).failed, count(outcomes).skipped) == (1, 1, 1)


def test_vitest_junit_reports_parse_with_errors() -> None:
    outcomes = parse_junit(VITEST_JUNIT)
    assert [(o.id, o.outcome) for o in outcomes] == [
        ("src/cart.test.ts::cart > adds", Outcome.passed),
        ("src/cart.test.ts::cart > loads", Outcome.error),
    ]
    assert outcomes[1].message == "boom"


def test_something_else_is_not_a_report() -> None:
    with pytest.raises(ReportError):
        parse_junit(b"<html/>")
    with pytest.raises(ReportError):
        parse_junit(b"not xml")


def t(test_id: str, outcome: Outcome) -> TestOutcome:
    return TestOutcome(id=test_id, outcome=outcome)


def test_a_test_failing_before_and_after_is_not_a_regression() -> None:
    before = [
        t("a", Outcome.passed),
        t("b", Outcome.failed),
        t("c", Outcome.failed),
        t("d", Outcome.passed),
    ]
    after = [
        t("a", Outcome.failed),
        t("b", Outcome.error),
        t("c", Outcome.passed),
        t("e", Outcome.failed),
    ]
    result = compare(before, after)
    assert result.regressions == ["a"]
    assert result.still_failing == ["b"]
    assert result.fixed == ["c"]
    assert result.new_failures == ["e"]
    assert result.missing == ["d"]
    assert result.pass_rate_after == 0.25
    assert not result.ok
    assert compare(before, before).ok


def files(mapping: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda name: mapping[name].encode() if name in mapping else None


def test_the_env_hash_follows_the_declared_test_dependencies_only() -> None:
    pyproject = (
        '[project]\nname="x"\ndependencies=["attrs"]\n'
        '[project.optional-dependencies]\ntest=["pytest>=7"]\n'
    )
    spec = detect(files({"pyproject.toml": pyproject}), "/usr/bin/python3")
    assert spec is not None and spec.kind == ProjectKind.python
    assert spec.requirements == ["attrs", "pytest>=7"]
    same = detect(files({"pyproject.toml": pyproject, "app.py": "x = 1"}), "/usr/bin/python3")
    assert same is not None and same.hash == spec.hash
    changed = detect(
        files({"pyproject.toml": pyproject.replace("attrs", "attrs>=23")}), "/usr/bin/python3"
    )
    assert changed is not None and changed.hash != spec.hash
    other_python = detect(files({"pyproject.toml": pyproject}), "/opt/python3.12")
    assert other_python is not None and other_python.hash != spec.hash
    js = detect(
        files({"package.json": '{"devDependencies": {"vitest": "^2"}}', "package-lock.json": "{}"}),
        "p",
    )
    assert js is not None and js.kind == ProjectKind.javascript and js.runner == "vitest"
    assert runner_command(js, "/r.xml", [], None).argv[:4] == [
        "npx",
        "vitest",
        "run",
        "--reporter=junit",
    ]
    assert detect(files({"README.md": "x"}), "p") is None


def test_test_dependencies_come_from_included_groups_and_plural_requirement_files() -> None:
    pyproject = (
        '[project]\nname="x"\ndependencies=["attrs"]\n'
        "[dependency-groups]\n"
        'lint=["ruff"]\n'
        'coverage=["pytest-cov", {include-group = "tests"}]\n'
        'tests=["pytest>=8", {include-group = "coverage"}]\n'
    )
    spec = detect(files({"pyproject.toml": pyproject}), "/usr/bin/python3")
    assert spec is not None and spec.requirements == ["attrs", "pytest>=8", "pytest-cov"]
    typer_style = detect(
        files({"pyproject.toml": pyproject, "requirements-tests.txt": "-e .\npytest\n"}), "p"
    )
    assert typer_style is not None and typer_style.requirement_files == ["requirements-tests.txt"]
