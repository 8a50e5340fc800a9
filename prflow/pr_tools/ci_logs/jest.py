"""Jest: ``● Suite › test`` headers, the message under them, ``at (file:line:col)`` frames.

Headers belong to the test file named by the last ``FAIL path`` line. The
frame reported is the first one inside that file (where the test failed),
else the first outside ``node_modules``.
"""

from __future__ import annotations

import re

from prflow.pr_tools.ci_logs.commands import jest_rerun
from prflow.pr_tools.ci_logs.models import Framework, TestFailure, failing_frame, short_message

_FILE = re.compile(r"^\s*FAIL\s+(?P<file>\S+)\s*(?:\(.*\))?$")
_HEADER = re.compile(r"^\s*● (?P<name>.+)$")
_FRAME = re.compile(r"^\s*at (?:.*\()?(?P<file>[^\s()]+?):(?P<line>\d+):\d+\)?$")
_CODE_FRAME = re.compile(r"^\s*(?:>\s*)?\d+ \||^\s*\|")
_SUMMARY = re.compile(r"^(?:Test Suites|Tests|Snapshots|Time):")
SEPARATOR = " › "
SUITE_FAILED = "Test suite failed to run"


def parse_jest(lines: list[str]) -> list[TestFailure]:
    failures: list[TestFailure] = []
    current_file: str | None = None
    index = 0
    while index < len(lines):
        file_line = _FILE.match(lines[index])
        if file_line and " > " not in lines[index]:
            current_file = file_line["file"]
        header = _HEADER.match(lines[index])
        if header is None:
            index += 1
            continue
        body, index = _body(lines, index + 1)
        failures.append(_failure(header["name"].strip(), body, current_file))
    return failures


def _body(lines: list[str], start: int) -> tuple[list[str], int]:
    end = start
    while end < len(lines) and not (
        _HEADER.match(lines[end]) or _FILE.match(lines[end]) or _SUMMARY.match(lines[end])
    ):
        end += 1
    return lines[start:end], end


def _failure(name: str, body: list[str], file: str | None) -> TestFailure:
    message_lines: list[str] = []
    for line in body:
        if _CODE_FRAME.match(line) or _FRAME.match(line):
            break
        message_lines.append(line)
    frames = [(m["file"], int(m["line"])) for m in map(_FRAME.match, body) if m]
    where = failing_frame(frames, file)
    is_suite = name == SUITE_FAILED
    test = f"{file} ({SUITE_FAILED.lower()})" if is_suite and file else name
    return TestFailure(
        framework=Framework.jest,
        test=test,
        file=where[0],
        line=where[1],
        message=short_message(message_lines),
        rerun=jest_rerun(file, None if is_suite else " ".join(name.split(SEPARATOR))),
    )
