"""What ``griffe`` says broke between a pair's releases, one record per breakage, with what a
call site needs to know (the parameter, where callers pass it).

``griffe check --format oneline`` names the object and the parameter but not the parameter's
position, and a doc call ``Flask(__name__)`` sees the removal of ``Flask.__init__``'s
``static_path`` only if it passes that slot. So the checker runs here through griffe's API
(the calls ``griffe check`` makes), in a subprocess of its own (``python -m
bench.docsync.breakages REPO PACKAGE SEARCH_PATH`` prints JSON): loading a package keeps
every module in memory, and a pair's breakages are cached beside its reports.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import griffe

from bench.impact.measure import run_checked
from bench.impact.pairs import PythonPair
from bench.impact.repos import BASE_REF, HEAD_REF, git

PARAMETER_KINDS = frozenset(
    {
        "PARAMETER_MOVED",
        "PARAMETER_REMOVED",
        "PARAMETER_CHANGED_KIND",
        "PARAMETER_CHANGED_DEFAULT",
        "PARAMETER_CHANGED_REQUIRED",
        "PARAMETER_ADDED_REQUIRED",
    }
)
_POSITIONAL = ("positional-only", "positional or keyword")
CACHE_NAME = "griffe-breakages-2.json"
"""The file a pair's records are cached in, beside its reports; its number goes up when
what a record holds or how it is judged changes, so an old cache is not read."""


@dataclass(frozen=True)
class Breakage:
    """One breakage of one API object (``griffe.Breakage``, flattened)."""

    kind: str
    """``griffe.BreakageKind`` name: ``OBJECT_REMOVED``, ``PARAMETER_REMOVED``, ..."""
    path: str
    """The object's dotted path in the package (``flask.app.Flask.__init__``)."""
    name: str
    """The object as ``griffe check`` prints it (``Flask.__init__``; a module by its path)."""
    is_module: bool = False
    parameter: str | None = None
    old_slot: int | None = None
    """The positional slot a caller filled for the parameter before (``self``/``cls`` not
    counted), None when it could not be passed by position."""
    new_slot: int | None = None
    new_kind: str | None = None
    """The parameter's kind after (``keyword-only``, ...), None when it was removed."""
    still_there: bool = False
    """A removal the head contradicts (:func:`_still_there`): a griffe false alarm."""
    same_access: bool = False
    """An object of another kind that callers use the same way (``OBJECT_CHANGED_KIND``): an
    attribute that became a property (``app.logger`` reads the same), a class or function
    rebound under its name, which griffe sees as an attribute (attrs 21's ``Factory =
    _add_hash(...)(Factory)``, pathspec's ``match_tree = match_tree_entries``)."""

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Breakage:
        return cls(**data)  # type: ignore[arg-type]


def _slot(parameter: object) -> int | None:
    """Where a caller passes ``parameter`` by position, not counting a bound ``self``."""
    function = getattr(parameter, "function", None)
    if function is None or str(getattr(parameter, "kind", "")) not in _POSITIONAL:
        return None
    names = [p.name for p in function.parameters]
    index = names.index(parameter.name)  # type: ignore[attr-defined]
    bound = function.parent is not None and function.parent.is_class
    if bound and "staticmethod" not in {str(label) for label in function.labels}:
        index -= 1
    return index if index >= 0 else None


def _kind_name(parameter: object) -> str | None:
    kind = getattr(parameter, "kind", None)
    return None if kind is None else str(kind.value)


def _resolves_to_module(obj: object) -> bool:
    """Whether ``obj`` is a module; a removed import of an external name (pyzmq's
    ``from __future__ import absolute_import``) is an alias griffe cannot resolve: not one."""
    try:
        return bool(obj.is_module)  # type: ignore[attr-defined]
    except griffe.AliasResolutionError:
        return False


def _is_property(obj: object) -> bool:
    """A property, by label or by a decorator named like one (``cached_property``,
    ``locked_cached_property``)."""
    try:
        if "property" in {str(label) for label in getattr(obj, "labels", ())}:
            return True
        decorators = getattr(obj, "decorators", ())
    except griffe.AliasResolutionError:
        return False
    return any(str(d.value).rsplit(".", 1)[-1].endswith("property") for d in decorators)


def _rebound(breakage: object) -> bool:
    """A class or function that became an attribute: the name rebound to a callable."""
    old, new = breakage.old_value, breakage.new_value  # type: ignore[attr-defined]
    return str(getattr(new, "value", new)) == "attribute" and str(getattr(old, "value", old)) in (
        "class",
        "function",
    )


def _record(breakage: object) -> Breakage:
    obj = breakage.obj  # type: ignore[attr-defined]
    kind = breakage.kind.name  # type: ignore[attr-defined]
    is_module = _resolves_to_module(obj)
    module_path = obj.path if is_module else obj.parent.module.path
    name = obj.path if is_module else obj.path.removeprefix(module_path + ".")
    if kind not in PARAMETER_KINDS:
        same_access = kind == "OBJECT_CHANGED_KIND" and (_is_property(obj) or _rebound(breakage))
        return Breakage(kind, obj.path, name, is_module=is_module, same_access=same_access)
    old, new = breakage.old_value, breakage.new_value  # type: ignore[attr-defined]
    parameter = (old if old is not None else new).name
    return Breakage(
        kind,
        obj.path,
        name,
        parameter=parameter,
        old_slot=_slot(old) if old is not None else None,
        new_slot=_slot(new) if new is not None else None,
        new_kind=_kind_name(new),
    )


def find(repo: Path, package: str, search_path: str) -> list[Breakage]:
    """``griffe check PACKAGE --against base --base-ref head``, as records (in process; the
    search path as the command line has it, ``sys.path`` after the pair's)."""

    def load(ref: str) -> object:
        return griffe.load_git(
            package,
            ref=ref,
            repo=repo,
            search_paths=[search_path, *sys.path],
            resolve_aliases=True,
            resolve_external=None,
        )

    old, new = load(BASE_REF), load(HEAD_REF)
    shipped = set(git(repo, "ls-tree", "-r", "--name-only", HEAD_REF).splitlines())
    found = []
    for breakage in griffe.find_breaking_changes(old, new):  # type: ignore[arg-type]
        record = _record(breakage)
        if record.kind == "OBJECT_REMOVED" and _still_there(record, shipped, search_path):
            record = replace(record, still_there=True)
        found.append(record)
    return found


def _still_there(record: Breakage, shipped: set[str], search_path: str) -> bool:
    """A module griffe reports removed whose file the head release still ships (celery 1.0
    keeps ``celery/registry.py``): importing it works as before."""
    if not record.is_module:
        return False
    parts = record.path.split(".")
    stem = "/".join(parts) if search_path in ("", ".") else f"{search_path}/{'/'.join(parts)}"
    return f"{stem}.py" in shipped or f"{stem}/__init__.py" in shipped


def pair_breakages(repo: Path, pair: PythonPair, cache: Path) -> list[Breakage]:
    """The pair's breakages, from ``cache`` when there (a subprocess computes them once)."""
    if not cache.is_file():
        command = [sys.executable, "-m", "bench.docsync.breakages", str(repo)]
        command += [pair.import_package, pair.search_path or "."]
        done = run_checked(command, cwd=Path(__file__).resolve().parents[2])
        cache.write_text(done.stdout, encoding="utf-8")
    return [Breakage.from_json(item) for item in json.loads(cache.read_text(encoding="utf-8"))]


def main(argv: list[str]) -> int:
    repo, package, search_path = argv
    found = find(Path(repo), package, search_path)
    print(json.dumps([asdict(b) for b in found], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
