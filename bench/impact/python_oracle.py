"""The Python oracle: griffe's own breaking-change check, with its known noise corrected.

griffe loads both releases from their snapshot directories (never the
current directory: ``try_relative_path=False`` and an explicit search path),
resolves aliases, and ``griffe.find_breaking_changes`` lists what broke. The
oracle is that list, grouped per API object, after these documented
corrections (each is a case where griffe's output is not a break a caller
of the old release would hit, or repeats one):

1. ``parameter_changed_default``: a new default does not stop a call from working.
2. (withdrawn: griffe's ``return_changed_type`` for a removed return annotation stands; an
   API checker's rule, and a type-checked caller loses the type it relied on.)
3. ``class_removed_base`` when only ``object`` went: ``class X(object)`` and ``class X`` are
   the same class. (``Generic[T]`` or ``Protocol`` dropped stands: ``X[int]`` and structural
   checks against ``X`` stop working.)
4. A member removed from a base class is reported by griffe once per subclass
   (through inherited aliases); it is one object: the defining member.
5. ``parameter_removed`` for a variadic parameter that is still there under
   another name (``**attrs`` -> ``**kwargs``): no call can name a variadic.
6. Class housekeeping attributes (``__slots__``, ``__match_args__``, ...)
   removed: they describe the class layout; no caller code names them.
7. Objects in test modules (``tests/``, ``test_*.py``) are not an API; prflow
   does not analyse them by design.
8. ``object_changed_kind`` between an attribute and a function or class when
   the attribute is an alias (``notin_ = not_in``, ``DDLElement =
   ExecutableDDLElement``), the function is a property under a decorator griffe
   does not know (``@util.memoized_property``), or an attribute built by a call
   became a function (``insert = public_factory(Insert, …)`` -> ``def insert``):
   callers read and call the name exactly as before. An attribute holding a
   literal (``x = 5``) that became a function stays a break.
9. ``object_removed`` for a module-level name still bound by tuple unpacking
   (``(CACHE_HIT, CACHE_MISS) = tuple(CacheStats)``), which griffe's visitor
   does not see.
10. ``object_removed`` for a member of a class whose ancestry griffe cannot
    resolve at head: the base is imported from a compiled extension with a
    pure-Python fallback (``if not HAS_CYEXTENSION: from ._py_row import
    BaseRow else: from .cyextension… import BaseRow``) and griffe follows the
    compiled branch, which has no source, so every inherited member looks gone.
11. ``class_removed_base`` when every removed base is still an ancestor at
    head: griffe compares the number of bases (``len(new) < len(old)``), and
    ``class Cast(WrapsColumnExpression, ColumnElement)`` becoming ``class
    Cast(WrapsColumnExpression)`` keeps ``ColumnElement`` in the MRO.

12. ``object_removed`` for a star import whose module does not exist in the base release
    (``if TYPE_CHECKING: from .processing_bamba import *`` with no ``processing_bamba``):
    griffe keeps the unexpanded ``*`` as an object; it named nothing a caller could use.

Every object keeps all the paths that name it (public and canonical), so a
finding matches whichever one prflow reports.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import griffe

from prflow.analysis.categories import categorize
from prflow.changes import FileCategory

_TRIVIAL_BASES = {"object"}
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
    old, new = load_package(base_root, package), load_package(head_root, package)
    breakages = list(griffe.find_breaking_changes(old, new))
    seconds = time.perf_counter() - start
    dropped: dict[str, int] = {}
    grouped: dict[str, dict[str, Any]] = {}
    roots = (base_root.resolve(), head_root.resolve())
    sides = _Sides(old, new, roots)
    for breakage in breakages:
        file = _file(breakage, roots, repo_prefix)
        reason = _correction(breakage, file) or sides.correction(breakage)
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
    if breakage.kind is kinds.CLASS_REMOVED_BASE:
        removed = {_base_name(b) for b in breakage.old_value} - {
            _base_name(b) for b in breakage.new_value
        }
        if removed <= _TRIVIAL_BASES:
            return "object base dropped"
    if breakage.kind is kinds.OBJECT_REMOVED and breakage.obj.name in _HOUSEKEEPING:
        return "class housekeeping attribute removed"
    if categorize(file) is FileCategory.test:
        return "object in a test module"
    return None


@dataclass(frozen=True)
class _Sides:
    """Both loaded releases, for the corrections that look at the other side of a breakage."""

    old: Any
    new: Any
    roots: tuple[Path, Path]

    def correction(self, breakage: Any) -> str | None:
        kinds = griffe.BreakageKind
        if breakage.kind is kinds.OBJECT_CHANGED_KIND and self._read_the_same(breakage):
            return "alias or property: same use after a kind change"
        if breakage.kind is kinds.OBJECT_REMOVED and self._tuple_bound(breakage.obj):
            return "name still bound by tuple unpacking"
        if breakage.kind is kinds.OBJECT_REMOVED and self._ancestry_unresolved(breakage.obj):
            return "class ancestry unresolvable at head (compiled-extension import)"
        if breakage.kind is kinds.CLASS_REMOVED_BASE and self._bases_still_ancestors(breakage):
            return "removed base still an ancestor"
        if breakage.kind is kinds.OBJECT_REMOVED and self._dangling_wildcard(breakage.obj):
            return "star import of a module that does not exist"
        return None

    def _dangling_wildcard(self, obj: Any) -> bool:
        """``from .gone import *`` kept as one unexpanded object: its module is not in the base
        release, so the line made no name importable that a caller could have used."""
        if not (obj.is_alias and str(obj.name).endswith("*")):
            return False
        target = str(getattr(obj, "target_path", "") or "").removesuffix(".*").removesuffix("*")
        if not target.startswith(f"{self.old.path}."):
            return True  # a relative name griffe could not place in the package
        return self._get(self.old, target) is None

    def _get(self, side: Any, path: str) -> Any:
        with contextlib.suppress(Exception):
            return side[path.split(".", 1)[1]] if "." in path else side
        return None

    def _read_the_same(self, breakage: Any) -> bool:
        path = str(breakage.obj.path)
        pair = [self._get(self.old, path), self._get(self.new, path)]
        if any(obj is None for obj in pair):
            return False
        kinds = [str(obj.kind.value) for obj in pair]
        if kinds == ["attribute", "function"] and not _is_literal(pair[0]):
            return True  # ``insert = public_factory(Insert)`` -> ``def insert``
        return any(_is_alias_attribute(obj) for obj in pair) or (
            set(kinds) == {"attribute", "function"} and any(_is_property(obj) for obj in pair)
        )

    def _tuple_bound(self, obj: Any) -> bool:
        parent = obj.parent
        if parent is None or not getattr(parent, "is_module", False):
            return False
        try:
            relative = Path(parent.filepath).resolve().relative_to(self.roots[0])
            tree = ast.parse((self.roots[1] / relative).read_text(encoding="utf-8"))
        except (OSError, ValueError, SyntaxError):
            return False
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Tuple | ast.List) and any(
                    isinstance(e, ast.Name) and e.id == obj.name for e in target.elts
                ):
                    return True
        return False

    def _ancestry_unresolved(self, obj: Any) -> bool:
        parent = obj.parent
        if parent is None or not getattr(parent, "is_class", False):
            return False
        cls = self._get(self.new, str(parent.path))
        return cls is not None and _unresolvable_ancestor(cls, 0)

    def _bases_still_ancestors(self, breakage: Any) -> bool:
        removed = {_base_name(b) for b in breakage.old_value} - {
            _base_name(b) for b in breakage.new_value
        }
        try:
            ancestors = {c.name for c in breakage.obj.mro()}
        except Exception:
            return False
        return bool(removed) and removed <= ancestors


def _is_alias_attribute(obj: Any) -> bool:
    if obj.is_alias or str(obj.kind.value) != "attribute":
        return False
    value = str(getattr(obj, "value", "") or "")
    return bool(re.fullmatch(r"[A-Za-z_][\w.]*", value)) and value not in ("None", "True", "False")


def _is_literal(obj: Any) -> bool:
    try:
        ast.literal_eval(str(getattr(obj, "value", "") or ""))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _is_property(obj: Any) -> bool:
    if "property" in getattr(obj, "labels", set()):
        return True
    decorators = getattr(obj, "decorators", None) or []
    return any(str(d.value).split("(", 1)[0].endswith("property") for d in decorators)


def _unresolvable_ancestor(cls: Any, depth: int) -> bool:
    """A base from the package itself that griffe cannot resolve, at any depth."""
    if depth > 20:
        return False
    package = str(cls.path).split(".", 1)[0]
    for base in cls.bases:
        base_path = base if isinstance(base, str) else str(base.canonical_path)
        if base_path.split(".", 1)[0] != package:
            continue
        try:
            found = cls.modules_collection.get_member(base_path)
            found = found.final_target if found.is_alias else found
        except Exception:
            return True
        if getattr(found, "is_class", False) and _unresolvable_ancestor(found, depth + 1):
            return True
    return False


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
