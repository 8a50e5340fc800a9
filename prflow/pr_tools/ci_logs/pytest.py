"""pytest: the short summary names each failure; its section says where and why.

``FAILED path::test - message`` lines (printed by default) give node ids.
The ``___ title ___`` sections under FAILURES and ERRORS hold the ``E``
lines and ``path:line:`` locations. Either alone is enough: a run with
``-rN`` has no summary, one with ``--tb=no`` has no sections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from prflow.pr_tools.ci_logs.commands import pytest_rerun
from prflow.pr_tools.ci_logs.models import Framework, TestFailure, short_message

_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (?P<node>\S+?\.py::\S.*?)(?: - (?P<msg>.*))?$")
_SECTION = re.compile(r"^_{3,} (?P<title>.+?) _{3,}$")
_BANNER = re.compile(r"^={3,} (?P<title>.+?) ={3,}$")
_LOCATION = re.compile(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+):(?: .*)?$")
_SETUP_PREFIX = re.compile(r"^ERROR at (?:setup|teardown|collection) of ")


@dataclass
class _Section:
    title: str
    errors: list[str] = field(default_factory=list)
    locations: list[tuple[str, int]] = field(default_factory=list)


def parse_pytest(lines: list[str]) -> list[TestFailure]:
    sections = _sections(lines)
    summary = [m for m in map(_SUMMARY.match, lines) if m]
    if not summary:
        return [_from_section(section) for section in sections.values()]
    failures = []
    for match in summary:
        node = match["node"].strip()
        section = sections.get(_title_of(node))
        failures.append(_failure(node, section, match["msg"]))
    return failures


def _sections(lines: list[str]) -> dict[str, _Section]:
    """Sections under the FAILURES / ERRORS banners, by their title."""
    found: dict[str, _Section] = {}
    current: _Section | None = None
    inside = False
    for line in lines:
        banner = _BANNER.match(line)
        if banner:
            inside = banner["title"] in {"FAILURES", "ERRORS"}
            current = None
            continue
        if not inside:
            continue
        header = _SECTION.match(line)
        if header:
            title = _SETUP_PREFIX.sub("", header["title"])
            current = found.setdefault(title, _Section(title))
        elif current is not None:
            if line.startswith("E ") or line == "E":
                current.errors.append(line[1:])
            location = _LOCATION.match(line)
            if location:
                current.locations.append((location["file"], int(location["line"])))
    return found


def _title_of(node_id: str) -> str:
    """The section title pytest prints for a node id: the parts after the file, dot-joined."""
    return ".".join(node_id.split("::")[1:])


def _failure(node: str, section: _Section | None, summary_message: str | None) -> TestFailure:
    file = node.split("::", 1)[0]
    line = None
    message = summary_message or ""
    if section is not None:
        in_file = [number for path, number in section.locations if path == file]
        line = in_file[-1] if in_file else None
        if section.errors:
            message = short_message(section.errors)
    return TestFailure(
        framework=Framework.pytest,
        test=node,
        file=file,
        line=line,
        message=short_message([message]),
        rerun=pytest_rerun(node),
    )


def _from_section(section: _Section) -> TestFailure:
    file, line = section.locations[-1] if section.locations else (None, None)
    node = f"{file}::{section.title.replace('.', '::')}" if file else section.title
    return TestFailure(
        framework=Framework.pytest,
        test=node,
        file=file,
        line=line,
        message=short_message(section.errors),
        rerun=pytest_rerun(node),
    )
