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
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

TEST_EXTRAS = ("test", "tests", "testing", "dev")
PYTHON_SPEC_FILES = (
    "pyproject.toml",
    "requirements.txt",
    "requirements-test.txt",
    "requirements-dev.txt",
    "test-requirements.txt",
    "requirements/test.txt",
    "requirements/dev.txt",
)
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
    runner: str = "pytest"
    test_script: str = field(default="", compare=False)
    """A JS project's ``scripts.test`` of package.json (what ``npm test`` runs)."""
    jest_junit: bool = field(default=False, compare=False)
    """Whether the JS project declares the jest-junit reporter."""


Read = Callable[[str], bytes | None]


def _hash(parts: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def python_requirements(pyproject: bytes) -> list[str]:
    """Runtime plus test requirements declared in ``pyproject.toml``."""
    data = tomllib.loads(pyproject.decode("utf-8"))
    project = data.get("project", {})
    found: list[str] = list(project.get("dependencies", []))
    extras = project.get("optional-dependencies", {})
    groups = data.get("dependency-groups", {})
    for name in TEST_EXTRAS:
        found += list(extras.get(name, []))
        found += [g for g in groups.get(name, []) if isinstance(g, str)]
    return list(dict.fromkeys(found))


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
    requirements: list[str] = []
    files: list[str] = []
    if "pyproject.toml" in present:
        requirements = python_requirements(present["pyproject.toml"])
    for name in PYTHON_SPEC_FILES[1:]:
        if name in present and (name != "requirements.txt" or not requirements):
            files.append(name)
    if not any("pytest" in r for r in requirements) and not files:
        requirements.append("pytest")
    digest = _hash(
        {
            "kind": "python",
            "interpreter": interpreter,
            "requirements": requirements,
            "files": {name: present[name].decode("utf-8", errors="replace") for name in files},
        }
    )
    return EnvSpec(ProjectKind.python, digest, requirements, files)
