"""Re-run commands: the smallest command that runs one failing test locally."""

from __future__ import annotations

import re
import shlex


def js_name_pattern(name: str) -> str:
    """A ``-t`` pattern (a JavaScript regex) that matches ``name`` literally, anchored."""
    return "^" + re.sub(r"([.*+?^${}()|\[\]\\/])", r"\\\1", name) + "$"


def pytest_rerun(node_id: str) -> str:
    return f"pytest {shlex.quote(node_id)} -v"


def jest_rerun(file: str | None, full_name: str | None) -> str:
    return _js_rerun("npx jest", file, full_name)


def vitest_rerun(file: str | None, full_name: str | None) -> str:
    return _js_rerun("npx vitest run", file, full_name)


def _js_rerun(runner: str, file: str | None, full_name: str | None) -> str:
    """``full_name`` is the describe blocks and the test joined by spaces, as ``-t`` matches."""
    parts = [runner]
    if file:
        parts.append(shlex.quote(file))
    if full_name:
        parts += ["-t", shlex.quote(js_name_pattern(full_name))]
    return " ".join(parts)


def go_rerun(test: str, package: str | None) -> str:
    pattern = "/".join(f"^{re.escape(part)}$" for part in test.split("/"))
    return f"go test -run {shlex.quote(pattern)} -v {package or './...'}"
