"""The test command as the user types it: a shell line, a per-test report however pytest is
started, a selection where the command can take one, and the runner's summary line when no
report comes back."""

from __future__ import annotations

from prflow.test_runs.command import runner_command
from prflow.test_runs.compare import RunFacts, compare_counts
from prflow.test_runs.environment import EnvSpec, ProjectKind
from prflow.test_runs.models import ResultBasis, TestCounts
from prflow.test_runs.summary import parse_summary

PY = EnvSpec(ProjectKind.python, "h")
JS = EnvSpec(ProjectKind.javascript, "h", runner="jest", test_script="jest", jest_junit=True)


def line(typed: str, selection: list[str] | None = None, spec: EnvSpec = PY) -> str:
    command = runner_command(spec, "/w/r.xml", selection or [], typed)
    assert command.argv[:2] == ["sh", "-c"]
    return command.argv[2]


def test_a_typed_command_runs_through_the_shell_with_the_report_asked_of_pytest() -> None:
    command = runner_command(PY, "/w/r.xml", [], "PYTHONPATH=src python -m pytest -q tests")
    assert command.argv == ["sh", "-c", "PYTHONPATH=src python -m pytest -q tests"]
    assert command.env["PYTEST_ADDOPTS"] == "--junitxml=/w/r.xml -o junit_family=xunit1"
    assert line("make test") == "make test" and line("tox -e py") == "tox -e py"
    assert line("pip install -e . && pytest") == "pip install -e . && pytest"
    # a user's own PYTEST_ADDOPTS keeps its options and gains the report
    assert line("PYTEST_ADDOPTS='-x' pytest") == (
        "PYTEST_ADDOPTS='-x --junitxml=/w/r.xml -o junit_family=xunit1' pytest"
    )


def test_a_selection_replaces_the_paths_of_a_plain_command_and_others_run_whole() -> None:
    picked = ["tests/test_a.py"]
    assert line("PYTHONPATH=src python -m pytest -q -k 'a or b' tests", picked) == (
        "PYTHONPATH=src python -m pytest -q -k 'a or b' tests/test_a.py"
    )
    assert line("npx jest src", ["src/a.test.js"], JS) == (
        "npx jest --reporters=default --reporters=jest-junit src/a.test.js"
    )
    assert line("npm test", ["src/a.test.js"], JS) == (
        "npm test -- --reporters=default --reporters=jest-junit src/a.test.js"
    )
    assert line("npx vitest", [], JS).startswith("npx vitest run --reporter=default")
    whole = runner_command(PY, "/w/r.xml", picked, "make test")
    assert whole.argv == ["sh", "-c", "make test"] and not whole.selection_applied


def test_summary_lines_of_pytest_jest_vitest_and_unittest() -> None:
    pytest_q = parse_summary("....F\n1 failed, 4 passed, 2 skipped, 3 warnings in 0.52s\n")
    assert pytest_q is not None and pytest_q.runner == "pytest"
    assert pytest_q.counts == TestCounts(passed=4, failed=1, skipped=2)
    chained = parse_summary(
        "===== 3 passed in 1.0s =====\nok\n===== 1 error, 2 passed in 2.0s (0:00:02) =====\n"
    )
    assert chained is not None and chained.counts == TestCounts(passed=5, errors=1)
    none = parse_summary("collected 0 items\n\n============ no tests ran in 0.01s ============\n")
    assert none is not None and none.tests == 0
    jest = parse_summary(
        "Test Suites: 1 failed, 3 passed, 4 total\nTests:       2 failed, 1 skipped, 9 passed, "
        "12 total\nTime: 1 s\n"
    )
    assert jest is not None and jest.counts == TestCounts(passed=9, failed=2, skipped=1)
    vitest = parse_summary(
        "\x1b[2m Test Files \x1b[22m 1 failed | 1 passed (2)\n"
        "\x1b[2m      Tests \x1b[22m 1 failed | 5 passed (6)\n"
    )
    assert vitest is not None and vitest.counts == TestCounts(passed=5, failed=1)
    django = parse_summary("Ran 12 tests in 0.123s\n\nFAILED (failures=1, errors=2, skipped=3)\n")
    assert django is not None and django.counts == TestCounts(
        passed=6, failed=1, errors=2, skipped=3
    )
    assert parse_summary("make: *** [test] Error 2\n") is None


def facts(exit_code: int, basis: ResultBasis, **counts: int) -> RunFacts:
    return RunFacts(exit_code=exit_code, basis=basis, counts=TestCounts(**counts))


def test_without_per_test_reports_the_exit_status_and_counts_are_compared() -> None:
    summary = ResultBasis.summary
    assert compare_counts(facts(0, summary, passed=9), facts(0, summary, passed=9)) == []
    worse = compare_counts(facts(0, summary, passed=9), facts(1, summary, passed=8, failed=1))
    assert worse == [
        "the test command exited 1 after the change (0 before)",
        "1 more tests fail or error after the change",
        "1 fewer tests pass after",
    ]
    blind = ResultBasis.exit_status
    assert compare_counts(facts(0, blind), facts(0, blind)) == []
    assert compare_counts(facts(0, blind), facts(2, blind))
    assert compare_counts(facts(1, blind), facts(1, blind)), "failing both times: cannot tell"
