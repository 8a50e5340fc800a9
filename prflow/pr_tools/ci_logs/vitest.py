"""Vitest: `` FAIL  file > suite > test`` headers, the error line, a `` ❯ file:line:col`` frame."""

from __future__ import annotations

import re

from prflow.pr_tools.ci_logs.commands import vitest_rerun
from prflow.pr_tools.ci_logs.models import Framework, TestFailure, failing_frame, short_message

_HEADER = re.compile(r"^\s*FAIL\s+(?P<file>\S+?)(?: > (?P<name>.+?))?(?: \[.*\])?\s*$")
_FRAME = re.compile(r"^\s*❯ (?:.*\()?(?P<file>[^\s()]+?):(?P<line>\d+):\d+\)?\s*$")
_END = re.compile(r"^\s*⎯{3,}|^\s*(?:Test Files|Tests|Duration|Start at)\s")
_DIFF_START = re.compile(r"^\s*- Expected")


def parse_vitest(lines: list[str]) -> list[TestFailure]:
    failures: list[TestFailure] = []
    for index, line in enumerate(lines):
        header = _HEADER.match(line)
        if header is None or (header["name"] is None and "[" not in line):
            continue
        body: list[str] = []
        for follow in lines[index + 1 :]:
            if _END.match(follow) or _HEADER.match(follow):
                break
            body.append(follow)
        failures.append(_failure(header["file"], header["name"], body))
    return failures


def _failure(file: str, name: str | None, body: list[str]) -> TestFailure:
    message: list[str] = []
    for line in body:
        if _FRAME.match(line) or _DIFF_START.match(line):
            break
        message.append(line)
    frames = [(m["file"], int(m["line"])) for m in map(_FRAME.match, body) if m]
    where = failing_frame(frames, file)
    parts = name.split(" > ") if name else []
    return TestFailure(
        framework=Framework.vitest,
        test=f"{file} > {name}" if name else file,
        file=where[0],
        line=where[1],
        message=short_message(message),
        rerun=vitest_rerun(file, " ".join(parts) or None),
    )
