"""Modules a PR starts importing, and which of them resolve nowhere.

An import that names neither a file of the repository, nor a standard
library module, nor a declared dependency is one of the marks of generated
code that invents APIs. Distribution names and import names differ
(``PyYAML`` installs ``yaml``), so names are compared loosely and a few
well-known differences are known by name.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

_PY_IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import|import\s+([A-Za-z_][\w.]*))")
_JS_IMPORT = re.compile(
    r"""(?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*|^\s*import\s+)['"]([^'"]+)['"]"""
)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

NODE_BUILTINS = frozenset(
    {
        "assert", "buffer", "child_process", "cluster", "crypto", "dgram", "dns", "events",
        "fs", "http", "http2", "https", "module", "net", "os", "path", "perf_hooks",
        "process", "querystring", "readline", "stream", "string_decoder", "timers", "tls",
        "tty", "url", "util", "v8", "vm", "worker_threads", "zlib",
    }
)  # fmt: skip
IMPORT_NAME_OF = {
    "pyyaml": "yaml",
    "beautifulsoup4": "bs4",
    "pillow": "pil",
    "scikit-learn": "sklearn",
    "opencv-python": "cv2",
    "python-dateutil": "dateutil",
    "pyjwt": "jwt",
    "attrs": "attr",
    "pygithub": "github",
    "protobuf": "google",
    "python-dotenv": "dotenv",
    "typing-extensions": "typing_extensions",
}
"""Distributions whose import name is not their normalised project name."""

MANIFEST_NAMES = ("pyproject.toml", "package.json", "setup.cfg")
"""Files that declare dependencies (besides ``requirements*.txt``)."""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def is_manifest(path: str) -> bool:
    name = PurePosixPath(path).name
    return name in MANIFEST_NAMES or (name.startswith("requirements") and name.endswith(".txt"))


def imported_modules(lines: Iterable[str], language: str) -> list[str]:
    """Top-level modules (Python) or packages (JS/TS) that ``lines`` import, relative ones
    left out."""
    found: list[str] = []
    for line in lines:
        if language == "python":
            match = _PY_IMPORT.match(line)
            if match:
                found.append((match.group(1) or match.group(2)).split(".")[0])
        elif language in ("javascript", "typescript"):
            for spec in _JS_IMPORT.findall(line):
                if spec.startswith((".", "/")):
                    continue
                parts = spec.removeprefix("node:").split("/")
                found.append("/".join(parts[:2]) if spec.startswith("@") else parts[0])
    return list(dict.fromkeys(found))


def declared_dependencies(manifests: Mapping[str, str]) -> set[str]:
    """Normalised import names of everything the manifests declare (by path → text)."""
    names: set[str] = set()
    for path, text in manifests.items():
        name = PurePosixPath(path).name
        if name == "package.json":
            names |= _package_json(text)
        elif name == "pyproject.toml":
            names |= _pyproject(text)
        else:
            names |= {m.group(1) for line in text.splitlines() if (m := _REQUIREMENT.match(line))}
    return {_normal(IMPORT_NAME_OF.get(n.lower(), n)) for n in names}


def _package_json(text: str) -> set[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return set()
    names: set[str] = set()
    for section in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        value = data.get(section) if isinstance(data, dict) else None
        if isinstance(value, dict):
            names |= set(value)
    return names


def _pyproject(text: str) -> set[str]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return set()
    project = data.get("project", {})
    specs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        specs += list(extra)
    poetry = data.get("tool", {}).get("poetry", {})
    names = set(poetry.get("dependencies", {})) | set(poetry.get("dev-dependencies", {}))
    names |= {m.group(1) for spec in specs if (m := _REQUIREMENT.match(str(spec)))}
    return names


def local_modules(paths: Iterable[str]) -> set[str]:
    """Normalised names importable from the repository itself (top-level and ``src/`` ones)."""
    found: set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        for start in (0, 1) if parts and parts[0] in ("src", "lib") else (0,):
            if len(parts) > start:
                found.add(_normal(PurePosixPath(parts[start]).stem))
    return found


def unresolved_imports(imports: Iterable[str], local: set[str], declared: set[str]) -> list[str]:
    """The imports found nowhere: not local, not standard library or Node, not declared."""
    standard = {_normal(n) for n in sys.stdlib_module_names} | set(NODE_BUILTINS)
    missing: list[str] = []
    for name in imports:
        normal = _normal(name.split("/")[-1] if name.startswith("@") else name)
        scoped = _normal(name)
        if {normal, scoped} & (standard | local | declared):
            continue
        missing.append(name)
    return missing
