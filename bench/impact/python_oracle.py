"""The Python oracle: griffe's own breaking-change check, with its known noise corrected.

griffe loads both releases from their snapshot directories (never the
current directory: ``try_relative_path=False`` and an explicit search path),
resolves aliases, and ``griffe.find_breaking_changes`` lists what broke. The
oracle is that list, grouped per API object, after these documented
corrections (each is a case where griffe's output is not a break a caller
of the old release would hit, or repeats one):

1. ``parameter_changed_default``: a new default does not stop a call from working.
2. ``return_changed_type`` to no annotation: removing an annotation changes no behaviour.
3. ``class_removed_base`` when only ``object``, ``Generic`` or ``Protocol`` went:
   ``class X(object)`` and ``class X`` are the same class.
4. A member removed from a base class is reported by griffe once per subclass
   (through inherited aliases); it is one object: the defining member.
5. ``parameter_removed`` for a variadic parameter that is still there under
   another name (``**attrs`` -> ``**kwargs``): no call can name a variadic.
6. Class housekeeping attributes (``__slots__``, ``__match_args__``, ...)
   removed: they describe the class layout; no caller code names them.
7. Objects in test modules (``tests/``, ``test_*.py``) are not an API; prflow
   does not analyse them by design.

Every object keeps all the paths that name it (public and canonical), so a
finding matches whichever one prflow reports.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import griffe

from prflow.analysis.categories import categorize
from prflow.changes import FileCategory

_TRIVIAL_BASES = {"object", "Generic", "Protocol"}
_HOUSEKEEPING = {"__slots__", "__match_args__", "__annotations__", "__doc__", "__module__"}


def _base_name(base: Any) -> str:
    """``typing.Generic[T]`` -> ``Generic``: a base as named, without module or arguments."""
    return str(base).split("[", 1)[0].rsplit(".", 1)[-1]


@dataclass(frozen=True)
class OracleObject:
    """One API object griffe flags, with every path that names it."""

    key: str
    paths: tuple[str, ...]
    file: str
    kinds: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "paths": list(self.paths),
            "file": self.file,
            "kinds": list(self.kinds),
        }


@dataclass(frozen=True)
class OracleRun:
    objects: tuple[OracleObject, ...]
    raw_breakages: int
    dropped: dict[str, int]
    seconds: float


def load_package(root: Path, package: str) -> Any:
    return griffe.load(
        package,
        search_paths=[root],
        try_relative_path=False,
        allow_inspection=False,
        resolve_aliases=True,
        resolve_external=None,
        modules_collection=griffe.ModulesCollection(),
        lines_collection=griffe.LinesCollection(),
    )


def griffe_check(base_root: Path, head_root: Path, package: str) -> list[Any]:
    """griffe's whole-package check in process: load both sides, list the breakages."""
    old, new = load_package(base_root, package), load_package(head_root, package)
    return list(griffe.find_breaking_changes(old, new))


def run_oracle(base_root: Path, head_root: Path, package: str, repo_prefix: str) -> OracleRun:
    """Breakages grouped per API object, after the corrections in the module docstring."""
    start = time.perf_counter()
    breakages = griffe_check(base_root, head_root, package)
    seconds = time.perf_counter() - start
    dropped: dict[str, int] = {}
    grouped: dict[str, dict[str, Any]] = {}
    roots = (base_root.resolve(), head_root.resolve())
    for breakage in breakages:
        file = _file(breakage, roots, repo_prefix)
        reason = _correction(breakage, file)
        if reason is not None:
            dropped[reason] = dropped.get(reason, 0) + 1
            continue
        key, paths = _identity(breakage)
        entry = grouped.setdefault(key, {"paths": set(), "file": file, "kinds": set()})
        entry["paths"].update(paths)
        entry["kinds"].add(breakage.kind.value)
    objects = tuple(
        OracleObject(key, tuple(sorted(v["paths"])), v["file"], tuple(sorted(v["kinds"])))
        for key, v in sorted(grouped.items())
    )
    return OracleRun(objects, len(breakages), dropped, seconds)


def _file(breakage: Any, roots: tuple[Path, ...], repo_prefix: str) -> str:
    """The object's file as a repository path (the importing module's file for aliases)."""
    obj = breakage.obj
    holder = obj.parent if obj.is_alias and obj.parent is not None else obj
    try:
        path = Path(holder.filepath).resolve()
    except Exception:
        return ""
    for root in roots:
        if path.is_relative_to(root):
            return repo_prefix + path.relative_to(root).as_posix()
    return path.name


def _correction(breakage: Any, file: str) -> str | None:
    kinds = griffe.BreakageKind
    if breakage.kind is kinds.PARAMETER_CHANGED_DEFAULT:
        return "parameter default changed"
    if breakage.kind is kinds.PARAMETER_REMOVED and _variadic_renamed(breakage):
        return "variadic parameter renamed"
    if breakage.kind is kinds.RETURN_CHANGED_TYPE and breakage.new_value is None:
        return "return annotation removed"
    if breakage.kind is kinds.CLASS_REMOVED_BASE:
        removed = {_base_name(b) for b in breakage.old_value} - {
            _base_name(b) for b in breakage.new_value
        }
        if removed <= _TRIVIAL_BASES:
            return "object/Generic/Protocol base dropped"
    if breakage.kind is kinds.OBJECT_REMOVED and breakage.obj.name in _HOUSEKEEPING:
        return "class housekeeping attribute removed"
    if categorize(file) is FileCategory.test:
        return "object in a test module"
    return None


def _variadic_renamed(breakage: Any) -> bool:
    kind = breakage.old_value.kind
    if kind not in (griffe.ParameterKind.var_positional, griffe.ParameterKind.var_keyword):
        return False
    return any(param.kind is kind for param in breakage.obj.parameters)


def _identity(breakage: Any) -> tuple[str, set[str]]:
    """The object's key (the defining member for inherited ones) and every path naming it."""
    obj = breakage.obj
    paths = {str(obj.path)}
    key = str(obj.path)
    if obj.is_alias:
        try:
            target = str(obj.target_path)
        except Exception:
            target = None
        if target:
            paths.add(target)
            if getattr(obj, "inherited", False):
                key = target  # correction 4: one object, the defining member
    else:
        with contextlib.suppress(Exception):
            paths.add(str(obj.canonical_path))
    return key, paths


def save_oracle(path: Path, run: OracleRun, meta: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        **meta,
        "tool": f"griffe {griffe_version()} find_breaking_changes",
        "raw_breakages": run.raw_breakages,
        "dropped_by_correction": dict(sorted(run.dropped.items())),
        "objects": [o.as_json() for o in run.objects],
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load_oracle(path: Path) -> tuple[OracleObject, ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        OracleObject(o["key"], tuple(o["paths"]), o["file"], tuple(o["kinds"]))
        for o in data["objects"]
    )


def griffe_version() -> str:
    from importlib.metadata import version

    return version("griffe")
