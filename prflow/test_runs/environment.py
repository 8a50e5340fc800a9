"""Which test environment a project declares, and the hash that names it in the cache.

A Python project's environment is a venv with its declared test dependencies
(``[project] dependencies`` plus the ``test``/``tests``/``dev`` extras or
dependency groups of ``pyproject.toml``, else ``requirements*.txt``); a JS
project's is ``node_modules`` from ``npm ci`` (which needs the lockfile). The
hash covers the declaring files and the interpreter, so an environment is
built once per dependency spec and shared by every run on the worker.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from prflow.test_runs.requirement_files import Read, gather

TEST_EXTRAS = ("test", "tests", "testing", "dev")
PYTHON_SPEC_FILES = (
    "pyproject.toml",
    "requirements.txt",
    "requirements-test.txt",
    "requirements-tests.txt",
    "requirements-testing.txt",
    "requirements_test.txt",
    "requirements_tests.txt",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "test-requirements.txt",
    "test_requirements.txt",
    "dev-requirements.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements/testing.txt",
    "requirements/dev.txt",
    "tests/requirements.txt",
)
"""Where Python projects declare test dependencies; the plural and underscore spellings are
as common as the first ones (``requirements-tests.txt`` is FastAPI's and Typer's)."""
JS_SPEC_FILES = ("package.json", "package-lock.json")


class ProjectKind(StrEnum):
    python = "python"
    javascript = "javascript"


@dataclass(frozen=True)
class EnvSpec:
    """A buildable environment: its kind, what to install, and the cache hash."""

    kind: ProjectKind
    hash: str
    requirements: list[str] = field(default_factory=list)
    requirement_files: list[str] = field(default_factory=list)
    """The requirement files to install, by tree path (their texts are ``requirement_texts``)."""
    requirement_texts: dict[str, str] = field(default_factory=dict, compare=False)
    """Each requirement file and every file it includes, the project's own line dropped (see
    :mod:`prflow.test_runs.requirement_files`): the installer reads these, not the tree."""
    runner: str = "pytest"
    test_script: str = field(default="", compare=False)
    """A JS project's ``scripts.test`` of package.json (what ``npm test`` runs)."""
    jest_junit: bool = field(default=False, compare=False)
    """Whether the JS project declares the jest-junit reporter."""


def _hash(parts: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def python_requirements(pyproject: bytes, wanted_extras: Iterable[str] = ()) -> list[str]:
    """Runtime plus test requirements declared in ``pyproject.toml``; ``wanted_extras`` are
    further extras a requirement file asked of the project (``.[tests]``)."""
    data = tomllib.loads(pyproject.decode("utf-8"))
    project = data.get("project", {})
    found: list[str] = list(project.get("dependencies", []))
    extras = project.get("optional-dependencies", {})
    groups = data.get("dependency-groups", {})
    for name in dict.fromkeys([*TEST_EXTRAS, *wanted_extras]):
        found += list(extras.get(name, []))
        found += _group(groups, name, set())
    return list(dict.fromkeys(found))


def _group(groups: dict[str, object], name: str, seen: set[str]) -> list[str]:
    """A PEP 735 dependency group's requirements, ``{include-group = ...}`` entries expanded
    (a group that includes itself, directly or not, adds nothing twice)."""
    if name in seen:
        return []
    seen.add(name)
    entries = groups.get(name, [])
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict) and isinstance(entry.get("include-group"), str):
            found += _group(groups, entry["include-group"], seen)
    return found


def detect(read: Read, interpreter: str) -> EnvSpec | None:
    """The environment the project at ``read`` declares, or None when it declares none."""
    package = read("package.json")
    if package is not None and read("pyproject.toml") is None:
        lock = read("package-lock.json")
        manifest = json.loads(package.decode("utf-8"))
        deps = {**manifest.get("dependencies", {}), **manifest.get("devDependencies", {})}
        runner = "vitest" if "vitest" in deps else "jest"
        digest = _hash({"kind": "js", "package": package.decode(), "lock": (lock or b"").decode()})
        script = manifest.get("scripts", {}).get("test", "")
        return EnvSpec(
            ProjectKind.javascript,
            digest,
            runner=runner,
            test_script=script if isinstance(script, str) else "",
            jest_junit="jest-junit" in deps,
        )
    contents = {name: read(name) for name in PYTHON_SPEC_FILES}
    present = {name: data for name, data in contents.items() if data is not None}
    if not present:
        return None
    pyproject = present.get("pyproject.toml")
    requirements = python_requirements(pyproject) if pyproject is not None else []
    files = [
        name
        for name in PYTHON_SPEC_FILES[1:]
        if name in present and (name != "requirements.txt" or not requirements)
    ]
    gathered = gather(read, files)
    if pyproject is not None and gathered.self_extras:
        requirements = python_requirements(pyproject, gathered.self_extras)
    if not any("pytest" in r for r in requirements) and not files:
        requirements.append("pytest")
    digest = _hash(
        {
            "kind": "python",
            "interpreter": interpreter,
            "requirements": requirements,
            "files": gathered.texts,
        }
    )
    return EnvSpec(ProjectKind.python, digest, requirements, files, gathered.texts)
