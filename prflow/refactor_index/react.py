"""React / Next.js detection and seed 003's per-symbol ``react_metadata``.

A project is a React project when a ``package.json`` outside ``node_modules``
depends on ``react`` or ``next`` (any dependency section) and the tree holds
``.jsx`` or ``.tsx`` files; a Next project when one depends on ``next``.
In a Next project a ``"use client"`` file holds client components; under an
``app/`` directory any other file holds server components; elsewhere it
depends on who imports the file, so it stays unknown (None).
"""

from __future__ import annotations

import json
import posixpath

from prflow.imports.build import is_skipped
from prflow.refactor_index.models import FileRecord, ReactMetadata, SymbolRecord

_DEPENDENCY_SECTIONS = ("dependencies", "devDependencies", "peerDependencies")


def package_dependencies(package_json: str) -> set[str]:
    """Every dependency name a ``package.json`` declares (empty when it is not valid JSON)."""
    try:
        data = json.loads(package_json)
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    names: set[str] = set()
    for section in _DEPENDENCY_SECTIONS:
        value = data.get(section)
        if isinstance(value, dict):
            names.update(str(name) for name in value)
    return names


def detect_project(paths: list[str], manifests: dict[str, str]) -> tuple[bool, bool]:
    """(is_react_project, is_next_project) from the tree's paths and its package.json texts."""
    dependencies: set[str] = set()
    for path, text in manifests.items():
        if posixpath.basename(path) == "package.json" and not is_skipped(path):
            dependencies |= package_dependencies(text)
    has_jsx = any(path.endswith((".jsx", ".tsx")) and not is_skipped(path) for path in paths)
    is_next = "next" in dependencies
    is_react = has_jsx and bool(dependencies & {"react", "next"})
    return is_react, is_next


def in_next_app_dir(path: str) -> bool:
    """True for files of a Next.js App Router tree (``app/`` or ``src/app/`` at any depth)."""
    return "app" in path.split("/")[:-1]


def react_metadata(
    symbol: SymbolRecord, record: FileRecord, path: str, *, is_next_project: bool
) -> ReactMetadata:
    """The seed's metadata of one symbol of a React project."""
    server: bool | None = None
    if is_next_project and record.directive == "use client":
        server = False
    elif is_next_project and in_next_app_dir(path):
        server = True
    return ReactMetadata(
        is_component=symbol.kind == "component",
        is_server_component=server if symbol.kind == "component" else None,
        uses_hooks=list(symbol.hooks),
        has_suspense_boundary=symbol.renders_suspense,
        is_barrel_file=record.is_barrel,
    )
