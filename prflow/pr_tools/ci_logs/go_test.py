"""go test: ``--- FAIL: TestName`` lines, their ``file.go:line: message`` output, the package.

Plain ``go test`` prints a test's output after its ``--- FAIL`` line,
``go test -v`` before it (after ``=== RUN``); both are read. A parent whose
subtests failed is not reported itself: its failing subtests are. The
``FAIL <package>`` line that closes each package names the package of the
failures above it, so the re-run command targets that package alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from prflow.pr_tools.ci_logs.commands import go_rerun
from prflow.pr_tools.ci_logs.models import Framework, TestFailure, short_message

_FAIL = re.compile(r"^(?P<indent>\s*)--- FAIL: (?P<name>\S+) \(")
_RESULT = re.compile(r"^\s*--- (?:PASS|SKIP|FAIL): ")
_RUN = re.compile(r"^=== (?:RUN|CONT|PAUSE|NAME)\s+(?P<name>\S+)")
_PACKAGE = re.compile(r"^(?:FAIL|ok)\s+(?P<package>\S+)\s+(?:[\d.]+s|\(cached\)|\[.*\])")
_OUTPUT = re.compile(r"^\s+(?P<file>[\w./-]+\.go):(?P<line>\d+): ?(?P<message>.*)$")
_PANIC = re.compile(r"^panic: (?P<message>.*?)(?: \[recovered\])?$")
_FRAME = re.compile(r"^\s+(?P<file>\S+_test\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$")


@dataclass
class _Test:
    name: str
    output: list[str] = field(default_factory=list)
    package: str | None = None


def parse_go_test(lines: list[str]) -> list[TestFailure]:
    failed: dict[str, _Test] = {}
    pending: list[_Test] = []
    output: dict[str, list[str]] = {}
    running: str | None = None
    current: _Test | None = None
    for line in lines:
        run = _RUN.match(line)
        if run:
            running, current = run["name"], None
            continue
        fail = _FAIL.match(line)
        if fail:
            current = _Test(fail["name"], list(output.get(fail["name"], [])))
            failed[current.name] = current
            pending.append(current)
            running = None
            continue
        package = _PACKAGE.match(line)
        if package:
            for test in pending:
                test.package = package["package"]
            pending, running, current = [], None, None
            continue
        if _RESULT.match(line):
            current = None
            continue
        if current is not None:
            current.output.append(line)
        elif running is not None:
            output.setdefault(running, []).append(line)
    leaves = [t for t in failed.values() if not any(o.startswith(t.name + "/") for o in failed)]
    return [_failure(test) for test in leaves]


def _failure(test: _Test) -> TestFailure:
    file: str | None = None
    line: int | None = None
    messages: list[str] = []
    for text in test.output:
        found = _OUTPUT.match(text)
        panic = _PANIC.match(text)
        frame = _FRAME.match(text)
        if found:
            if file is None:
                file, line = found["file"], int(found["line"])
            messages.append(found["message"])
        elif panic and not messages:
            messages.append(f"panic: {panic['message']}")
        elif frame and file is None:
            file, line = frame["file"], int(frame["line"])
    return TestFailure(
        framework=Framework.go,
        test=test.name,
        file=file,
        line=line,
        message=short_message(messages),
        rerun=go_rerun(test.name, test.package),
    )
