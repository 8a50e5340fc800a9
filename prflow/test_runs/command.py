"""The command that runs a repository's tests, as the user would type it, with a per-test report.

A command the user gives (``--test-command``, ``[refactor] test_command``) runs
through ``sh -c`` from the repository root, so an env prefix
(``PYTHONPATH=src python -m pytest``), ``&&``, ``make test``, ``tox -e py`` and
``npm test`` work as they do in a terminal. The per-test report is asked for
where the runner can be reached without rewriting what the user wrote:
pytest reads ``PYTEST_ADDOPTS`` however it is started (``-o junit_family=xunit1``
adds each test's file), jest-junit reads its ``JEST_JUNIT_*`` variables; a single
plain jest or vitest command (also behind ``npm test``) gets its reporter
flags appended. A selection of test files (the tests a step's files map to)
replaces the paths of a single plain pytest command and is appended to a
plain jest or vitest one; any other command runs whole, and says so.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from prflow.test_runs.environment import EnvSpec, ProjectKind

ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PYTHON = re.compile(r"^(?:.*/)?python[0-9.]*$")
PYTEST_VALUE_OPTIONS = frozenset(
    {
        "-k",
        "-m",
        "-p",
        "-o",
        "-c",
        "-W",
        "-r",
        "-n",
        "--rootdir",
        "--confcutdir",
        "--basetemp",
        "--junitxml",
        "--junit-xml",
        "--junit-prefix",
        "--log-level",
        "--durations",
        "--maxfail",
        "--tb",
        "--import-mode",
        "--deselect",
        "--ignore",
        "--ignore-glob",
        "--cov",
        "--cov-report",
        "--cov-config",
        "--dist",
        "--timeout",
        "--reruns",
        "--color",
        "--capture",
        "--override-ini",
        "--config-file",
        "--pythonwarnings",
    }
)
"""pytest options whose value may follow as the next word (``-k expr``): not test paths."""
JS_VALUE_OPTIONS = frozenset(
    {
        "-c",
        "--config",
        "-t",
        "--testNamePattern",
        "--testPathPattern",
        "--rootDir",
        "--roots",
        "-w",
        "--maxWorkers",
        "--outputFile",
        "--project",
        "--selectProjects",
        "--env",
        "--environment",
        "--testTimeout",
        "--shard",
        "--dir",
        "--root",
        "--mode",
        "--pool",
    }
)
"""jest and vitest options whose value may follow as the next word."""


@dataclass(frozen=True)
class TestCommand:
    """What to start, the runner's variables to add, and what the command can tell."""

    __test__ = False  # not a pytest class

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    selection_applied: bool = True
    """False: a selection was asked for, and this command runs whole (it cannot take one)."""


@dataclass(frozen=True)
class _Simple:
    """A single command without shell operators: its env prefix, program words and args."""

    assignments: list[tuple[str, str]]
    program: list[str]
    args: list[str]
    runner: str  # pytest, jest, vitest or "" (something else)
    npm: bool = False  # ``npm test`` / ``npm run test``: args go after ``--``


def runner_command(
    spec: EnvSpec, report: str, selection: Sequence[str], typed: str | None
) -> TestCommand:
    """The tests of the project ``spec`` describes (all, or ``selection``), writing a JUnit
    report to ``report`` when the runner can; ``typed`` is the user's own command."""
    if typed and typed.strip():
        return _typed(spec, report, list(selection), typed.strip())
    if spec.kind == ProjectKind.python:
        argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        return TestCommand([*argv, *_pytest_report_args(report), *selection])
    if spec.runner == "vitest":
        return TestCommand(["npx", "vitest", "run", *_vitest_report_args(report), *selection])
    return TestCommand(
        ["npx", "jest", "--ci", "--reporters=default", "--reporters=jest-junit", *selection],
        env=_jest_env(report),
    )


def _pytest_report_args(report: str) -> list[str]:
    return [f"--junitxml={report}", "-o", "junit_family=xunit1"]


def _vitest_report_args(report: str) -> list[str]:
    return ["--reporter=junit", f"--outputFile={report}"]


def _jest_env(report: str) -> dict[str, str]:
    return {"JEST_JUNIT_OUTPUT_FILE": report, "JEST_JUNIT_ADD_FILE_ATTRIBUTE": "true"}


def _typed(spec: EnvSpec, report: str, selection: list[str], typed: str) -> TestCommand:
    addopts = " ".join(shlex.quote(a) for a in _pytest_report_args(report))
    env = {"PYTEST_ADDOPTS": addopts, **_jest_env(report)}
    simple = _simple(typed, spec)
    if simple is None or not simple.runner:
        return TestCommand(["sh", "-c", typed], env, selection_applied=not selection)
    assignments = [
        (name, f"{value} {addopts}" if name == "PYTEST_ADDOPTS" else value)
        for name, value in simple.assignments
    ]
    args = simple.args
    if simple.runner == "pytest":
        if selection:
            args = [*_options(args, PYTEST_VALUE_OPTIONS), *selection]
    else:
        if selection:
            args = _options(args, JS_VALUE_OPTIONS)
        if simple.runner == "jest" and spec.jest_junit:
            args = [*args, "--reporters=default", "--reporters=jest-junit"]
        elif simple.runner == "vitest":
            args = [*args, "--reporter=default", "--reporter=junit", f"--outputFile.junit={report}"]
        args = [*args, *selection]
        if simple.npm and args != simple.args:
            args = ["--", *args]
    words = [*simple.program, *args]
    prefix = [f"{name}={shlex.quote(value)}" for name, value in assignments]
    line = " ".join([*prefix, shlex.join(words)])
    return TestCommand(["sh", "-c", line], env)


def _simple(typed: str, spec: EnvSpec) -> _Simple | None:
    """``typed`` split as the shell would, when it is one plain command; else None."""
    lexer = shlex.shlex(typed, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    if any(set(w) <= set("();<>|&") for w in words) or any(c in typed for c in "$`\n"):
        return None
    assignments: list[tuple[str, str]] = []
    while words and ASSIGNMENT.match(words[0]):
        name, value = words.pop(0).split("=", 1)
        assignments.append((name, value))
    if not words:
        return None
    head = words[0].rsplit("/", 1)[-1]
    if head in ("pytest", "py.test"):
        return _Simple(assignments, words[:1], words[1:], "pytest")
    if PYTHON.match(words[0]) and words[1:3] == ["-m", "pytest"]:
        return _Simple(assignments, words[:3], words[3:], "pytest")
    if head == "npx" and len(words) > 1:
        head, words = words[1], words[1:]
        return _js(assignments, ["npx", *words[:1]], words[1:], head)
    if head in ("jest", "vitest"):
        return _js(assignments, words[:1], words[1:], head)
    if head == "npm" and words[1:] in (["test"], ["run", "test"], ["t"]):
        runner = _script_runner(spec.test_script)
        return _Simple(assignments, words, [], runner, npm=True)
    return _Simple(assignments, words, [], "")


def _js(
    assignments: list[tuple[str, str]], program: list[str], args: list[str], head: str
) -> _Simple:
    if head == "vitest":
        if args[:1] in (["run"], ["watch"], ["dev"]):
            args = args[1:]
        program = [*program, "run"]  # ``vitest`` alone watches; a test run must end
    return _Simple(assignments, program, args, head if head in ("jest", "vitest") else "")


def _script_runner(script: str) -> str:
    """The runner of a package.json ``test`` script that is a single plain jest/vitest run."""
    words = script.split()
    if not words or any(c in script for c in "&|;$`<>"):
        return ""
    head = words[0].rsplit("/", 1)[-1]
    return head if head in ("jest", "vitest") else ""


def _options(args: Sequence[str], value_options: frozenset[str]) -> list[str]:
    """The options of a runner's command line without its test paths (a selection replaces
    them): a word not starting with ``-`` is a path unless an option takes it as its value."""
    kept: list[str] = []
    takes_value = False
    for arg in args:
        if takes_value:
            kept.append(arg)
            takes_value = False
        elif arg.startswith("-"):
            kept.append(arg)
            takes_value = "=" not in arg and arg in value_options
        # else: a test path of the user's command, replaced by the selection
    return kept
