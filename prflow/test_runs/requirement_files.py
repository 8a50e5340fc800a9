"""A project's requirement files as the test installer takes them: includes followed, the
project itself left out.

Requirement files often name the project they sit in (``-e .``, ``.[tests]``, ``-e ..``
from ``requirements/``): an editable build writes into the tree, which the installer's
sandbox mounts read-only, so the whole install would fail. The project needs no install:
test runs put its tree first on ``PYTHONPATH``, and its declared dependencies come from
``pyproject.toml`` (plus the extras such a line asked for). Every file a kept file
includes (``-r``, ``-c``) is gathered too, with the same filter, so the installer reads
copies and never the tree.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from prflow.tools.paths import clean_repo_path
from prflow.tools.reader import ToolError

Read = Callable[[str], bytes | None]

_INCLUDE = re.compile(r"^(-r|--requirement|-c|--constraint)(=|\s+)(\S+)\s*$")
_SELF = re.compile(r"^(?:(?:-e|--editable)(?:=|\s+))?(\.{1,2}(?:/\.{0,2})*)/?(?:\[([^\]]*)\])?$")
_MAX_FILES = 32
"""Includes followed per project: enough for any real layout, bounded for a hostile one."""


@dataclass
class RequirementFiles:
    """Filtered texts by tree path, and the extras of the project the files asked for."""

    texts: dict[str, str] = field(default_factory=dict)
    self_extras: list[str] = field(default_factory=list)


def gather(read: Read, tops: Iterable[str]) -> RequirementFiles:
    """``tops`` and every file they include, with lines naming the project dropped."""
    found = RequirementFiles()
    queue = list(tops)
    while queue and len(found.texts) < _MAX_FILES:
        path = queue.pop(0)
        if path in found.texts:
            continue
        data = read(path)
        if data is None:
            continue
        here = posixpath.dirname(path)
        kept: list[str] = []
        for line in data.decode("utf-8", errors="replace").splitlines():
            bare = line.split(" #", 1)[0].strip()
            extras = self_reference(bare, here)
            if extras is not None:
                found.self_extras += [e for e in extras if e not in found.self_extras]
                continue
            include = _INCLUDE.match(bare)
            if include is not None and "://" not in include.group(3):
                target = _inside(here, include.group(3))
                if target is None:
                    continue  # outside the tree: the installer sees copies of the tree's files
                queue.append(target)
            kept.append(line)
        found.texts[path] = "\n".join(kept) + "\n"
    return found


def self_reference(line: str, here: str) -> list[str] | None:
    """The extras asked for when ``line`` (in a file in folder ``here``) names the project
    at the tree's root; None when it names anything else."""
    match = _SELF.match(line)
    if match is None or posixpath.normpath(posixpath.join(here or ".", match.group(1))) != ".":
        return None
    return [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]


def _inside(here: str, target: str) -> str | None:
    try:
        return clean_repo_path(posixpath.join(here, target))
    except ToolError:
        return None
