"""Breaking changes in a Python package's public API, read from the changed files outward.

The public API is what a caller can import: every public name of a public
module, and every name a module re-exports through a non-empty ``__all__``
(without one, names a module imports are private, as griffe counts them, and
the underscore convention decides the rest). We compare it the way griffe's
``find_breaking_changes`` does, by public import path, with its noise removed:

- Only what the changed files define or re-export is compared: their public
  names, the names other modules re-export from them, and the public classes
  elsewhere that inherit from their classes. Unchanged modules are parsed only
  when a lookup needs them, and every parse is cached by git blob SHA.
- A member removed from a base class is one finding at its definition, with
  the subclasses that inherited it listed, not one per subclass.
- A removed module is one finding; so is a module moved by a git rename.
- ``class X(object)`` becoming ``class X`` is no change; default values are
  not part of a call's contract; types are judged as griffe judges them: a
  removed return annotation, a dropped base class or a changed kind of object
  breaks, another return or attribute annotation does not.

Nothing here raises for one bad object: a name that cannot be followed, a
file that is too large or does not parse, or a comparison that fails is
listed as not analysed and the rest of the analysis goes on.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from prflow.analysis.findings import (
    MODULE_DETAIL,
    SEVERITY_BY_KIND,
    BreakingChange,
    BreakingKind,
    NotAnalysed,
    still_defined_note,
)
from prflow.analysis.parse_cache import (
    InputLimits,
    MemoryParseCache,
    ParseCache,
    ParsedFiles,
    ParserSpec,
)
from prflow.analysis.py_compat import parameter_breaks
from prflow.analysis.py_package import (
    External,
    Found,
    ModuleRef,
    PythonView,
    Target,
    Unresolved,
    is_private_name,
    is_python_path,
    kind_of,
)
from prflow.analysis.py_summary import summary_parser
from prflow.analysis.py_surface import (
    Attribute,
    Class,
    Definition,
    Function,
    Param,
)
from prflow.analysis.renames import RenameCandidate, pair_renames
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import SourceTree

__all__ = ["PythonApiDiff", "find_python_breaking_changes", "is_python_path", "python_parser"]

# Class attributes that describe the class itself; callers never use them as API.
_HOUSEKEEPING = frozenset(
    {
        "__slots__",
        "__doc__",
        "__module__",
        "__qualname__",
        "__annotations__",
        "__dict__",
        "__weakref__",
        "__match_args__",
        "__dataclass_fields__",
        "__dataclass_params__",
        "__abstractmethods__",
        "__orig_bases__",
        "__parameters__",
        "__all__",
    }
)
_TRIVIAL_BASES = frozenset({"object"})
"""Dropping ``object`` changes nothing; dropping ``Generic[T]`` or ``Protocol`` does (``X[int]``
and structural checks against ``X`` stop working), as an API checker (griffe) reports it."""
_MAX_NOT_ANALYSED_OBJECTS = 200
_T = TypeVar("_T")


def python_parser() -> ParserSpec:
    """Module summaries (surface and imports): the import graph's parses serve this analysis."""
    return summary_parser()


@dataclass
class PythonApiDiff:
    changes: list[BreakingChange]
    not_analysed: list[NotAnalysed]
    parsed_files: int = 0


def find_python_breaking_changes(
    changed: list[ChangedFile],
    base: SourceTree,
    head: SourceTree,
    cache: ParseCache | None = None,
    limits: InputLimits | None = None,
    progress: Callable[[str], None] | None = None,
) -> PythonApiDiff:
    """Breaking changes to the public API reachable from the changed Python files."""
    parsed = ParsedFiles(
        python_parser(), cache or MemoryParseCache(), limits or InputLimits(), progress=progress
    )
    base_paths: set[str] = set()
    head_paths: set[str] = set()
    moved: dict[str, str] = {}
    for item in changed:
        old_path = item.old_path or item.path
        if item.status is not FileStatus.added and is_python_path(old_path):
            base_paths.add(old_path)
        if item.status is not FileStatus.deleted and is_python_path(item.path):
            head_paths.add(item.path)
            if item.status is FileStatus.renamed and old_path != item.path:
                moved[old_path] = item.path
    if not base_paths:
        return PythonApiDiff([], [])
    unreadable: frozenset[str] = frozenset()
    while True:
        old = PythonView(base, parsed, unreadable=unreadable)
        new = PythonView(head, parsed, unreadable=unreadable)
        comparer = _Comparer(old, new, moved)
        old_seeds = _modules_of(old, base_paths)
        new_seeds = _modules_of(new, head_paths)
        old.preload(old_seeds)
        new.preload(new_seeds)
        comparer.compare(_public_scope(old, old_seeds), _public_scope(new, new_seeds))
        one_sided = _read_on_one_side_only(parsed.skipped, moved, old, new)
        if one_sided <= unreadable:
            break
        # A file one side could not read (too big, too slow, broken) would make everything it
        # defines look removed or changed: compare again with it unread on both sides.
        unreadable |= one_sided
    skipped = [
        _neither_side(parsed.skipped[path]) if path in unreadable else parsed.skipped[path]
        for path in sorted(parsed.skipped)
    ]
    objects = [n for n in comparer.not_analysed if n.path not in parsed.skipped]
    return PythonApiDiff(comparer.results(), skipped + objects, parsed.parsed_count)


def _read_on_one_side_only(
    skipped: Mapping[str, NotAnalysed], moved: Mapping[str, str], old: PythonView, new: PythonView
) -> frozenset[str]:
    """Skipped files whose counterpart on the other side was read (same path, or git rename),
    with that counterpart: both must stay unread for the comparison to be fair."""
    read = old.read_paths() | new.read_paths()
    pairs = [(path, path) for path in skipped]
    pairs += [(a, b) for a, b in moved.items() if a in skipped or b in skipped]
    found: set[str] = set()
    for first, second in pairs:
        if first in read or second in read:
            found |= {first, second}
    return frozenset(found)


def _neither_side(entry: NotAnalysed) -> NotAnalysed:
    return entry.model_copy(
        update={"reason": f"{entry.reason}; so its names were compared on neither side"}
    )


def _modules_of(view: PythonView, paths: Iterable[str]) -> list[str]:
    found = [view.index.by_path[p].dotted for p in sorted(paths) if p in view.index.by_path]
    return [name for name in found if view.index.by_dotted.get(name) is view.index.module(name)]


# --- which public paths can see the changed code -----------------------------------------


def _public_scope(view: PythonView, seeds: list[str]) -> dict[str, Target]:
    """Public import paths reaching what ``seeds`` define, re-export or let others inherit.

    Each module is expanded once per new batch of names it passes on; ``None``
    stands for "every name" (a changed module).
    """
    entries: dict[str, Target] = {}
    passed: dict[str, set[str] | None] = {}
    queue: deque[tuple[str, frozenset[str] | None]] = deque((seed, None) for seed in seeds)
    while queue:
        module, carried = queue.popleft()
        known = passed.get(module, set())
        if module in passed and (known is None or (carried is not None and carried <= known)):
            continue
        if carried is None or known is None:
            passed[module] = None
            fresh = carried
        else:
            fresh = frozenset(carried - known)
            passed[module] = known | carried
        reachable = view.is_reachable(module)
        if fresh is None:
            if reachable:
                entries[module] = ModuleRef(module)
            names: Iterable[str] = view.public_names(module) if reachable else ()
        else:
            names = sorted(n for n in fresh if reachable and view.is_public(module, n))
        for name in names:
            target = view.lookup(module, name)
            if target is not None:
                entries[f"{module}.{name}"] = target
        queue.extend(_dependents(view, module, fresh))
    return entries


def _dependents(
    view: PythonView, module: str, carried: frozenset[str] | None
) -> list[tuple[str, frozenset[str]]]:
    """Modules that pass on names of ``module`` (all, or ``carried``), with those names.

    A module passes on what it re-exports (imported names that are public in
    it: its ``__all__``, or star imports) and
    its classes built on what it imports (their inherited members change with
    the base). A module that merely uses the names passes nothing on, so its
    own importers are never read.
    """
    found: list[tuple[str, frozenset[str]]] = []
    for candidate in view.importers(module):
        imported = _names_imported_from(view, candidate, module, carried)
        if not imported:
            continue
        surface = view.surface(candidate)
        subclasses = {
            name
            for name, binding in (surface.bindings.items() if surface is not None else ())
            if isinstance(binding, Class)
            and any(base.split(".", 1)[0].split("[", 1)[0] in imported for base in binding.bases)
        }
        passed = {name for name in imported if view.is_public(candidate, name)} | subclasses
        if passed:
            found.append((candidate, frozenset(passed)))
    return found


def _names_imported_from(
    view: PythonView, importer: str, module: str, carried: frozenset[str] | None
) -> set[str]:
    imports = view.imports_of(importer)
    names = set(imports.whole.get(module, ()))
    for local, target in imports.named.get(module, ()):
        if carried is None or target in carried:
            names.add(local)
    if module in imports.stars:
        exposed = view.wildcard_names(module)
        names |= exposed if carried is None else exposed & carried
    return names


def _overload_breaks(before: Function, after: Function) -> list[str]:
    """Every old ``@overload`` must still be accepted by a new overload (or the new function)."""
    candidates = after.overloads or (after.params,)
    reasons = []
    for old in before.overloads:
        if not any(_accepts(old, new) for new in candidates):
            shown = ", ".join(
                f"{p.name}: {p.annotation}" if p.annotation else p.name
                for p in old
                if p.name not in ("self", "cls")
            )
            reasons.append(f"no overload accepts `{before.name}({shown})` any more")
    return reasons


def _accepts(old: tuple[Param, ...], new: tuple[Param, ...]) -> bool:
    """A call matching overload ``old`` is taken by ``new``: its parameters still fit.

    Annotations are not compared, as an API checker (griffe) compares none: an overload
    whose ``str | None`` became ``str`` is the same call.
    """
    return not parameter_breaks(old, new)


# --- comparing base with head -------------------------------------------------------------


@dataclass
class _Finding:
    file: str
    symbol: str
    kind: BreakingKind
    details: list[str]
    before: str | None
    after: str | None
    line: int | None
    new_name: str | None = None
    paths: list[str] = field(default_factory=list)
    inherited_by: list[str] = field(default_factory=list)


@dataclass
class _Removal:
    """A public path that no longer resolves, and what it named at base."""

    path: str
    target: Found


@dataclass
class _Comparer:
    old: PythonView
    new: PythonView
    moved: dict[str, str]
    findings: dict[tuple[str, str, BreakingKind], _Finding] = field(default_factory=dict)
    not_analysed: list[NotAnalysed] = field(default_factory=list)
    _compared: set[tuple[str, str]] = field(default_factory=set)
    _removals: dict[str, list[_Removal]] = field(default_factory=dict)
    _by_definition: dict[str, list[_Finding]] = field(default_factory=dict)
    """Findings on a changed object, by the path where it is defined (``pkg.Base.run``)."""
    _public_paths: dict[str, list[str]] = field(default_factory=dict)
    """Every public path of a definition at base, by the path where it is defined."""
    _new_entries: dict[str, Target] = field(default_factory=dict)

    def compare(self, old_entries: dict[str, Target], new_entries: dict[str, Target]) -> None:
        self._new_entries = new_entries
        for path, target in old_entries.items():
            if isinstance(target, Found):
                self._public_paths.setdefault(target.path, []).append(path)
        gone_modules = self._removed_modules(old_entries)
        for path in sorted(old_entries):
            if any(path.startswith(f"{gone}.") for gone in gone_modules) or path in gone_modules:
                continue
            home = old_entries[path]
            if isinstance(home, Found) and self._fold_into_module(path, home, gone_modules):
                continue
            try:
                self._compare_path(path, old_entries[path], new_entries)
            except Exception as exc:  # one object must never sink the run
                self._not_analysed(path, f"comparison failed: {type(exc).__name__}: {exc}")
        self._resolve_removals(old_entries, new_entries)

    def results(self) -> list[BreakingChange]:
        changes = []
        for f in self.findings.values():
            detail = "; ".join(dict.fromkeys(f.details))
            if f.inherited_by:
                shown = ", ".join(f"`{name}`" for name in f.inherited_by[:5])
                more = f" and {len(f.inherited_by) - 5} more" if len(f.inherited_by) > 5 else ""
                detail += f" (inherited by {shown}{more})"
            changes.append(
                BreakingChange(
                    file=f.file,
                    symbol=f.symbol,
                    kind=f.kind,
                    severity=SEVERITY_BY_KIND[f.kind],
                    language="python",
                    detail=detail,
                    before=f.before,
                    after=f.after,
                    new_name=f.new_name,
                    line=f.line,
                    public_paths=sorted(dict.fromkeys(f.paths)),
                )
            )
        return sorted(changes, key=lambda c: (c.file, c.line or 0, c.symbol, c.kind))

    # modules

    def _removed_modules(self, old_entries: dict[str, Target]) -> set[str]:
        """Public modules gone at head: one finding each, their members not listed again."""
        gone: set[str] = set()
        for path, target in sorted(old_entries.items()):
            if not isinstance(target, ModuleRef) or target.dotted != path:
                continue
            if self.new.index.exists(path) or any(path.startswith(f"{g}.") for g in gone):
                continue
            gone.add(path)
            module = self.old.index.module(path)
            if module is None:
                continue
            moved_to = self._moved_module(module.path)
            verb = f"moved to `{moved_to}`" if moved_to else "was removed"
            kind = BreakingKind.renamed_export if moved_to else BreakingKind.removed_export
            detail = f"{MODULE_DETAIL}`{path}` {verb}"
            finding = self._add(module.path, path, kind, detail, f"module {path}", None, 1)
            finding.new_name = moved_to
            finding.paths.append(path)
        return gone

    def _fold_into_module(self, path: str, target: Found, gone_modules: set[str]) -> bool:
        """A name re-exported from a removed module is part of that module's one finding."""
        module = target.module
        gone = next((g for g in gone_modules if module == g or module.startswith(f"{g}.")), None)
        if gone is None or self._resolve_new(path, {}) is not None:
            return False
        home = self.old.index.module(gone)
        for finding in self.findings.values():
            if home is not None and finding.file == home.path and finding.symbol == gone:
                finding.paths.append(path)
        return True

    def _moved_module(self, old_path: str) -> str | None:
        new_path = self.moved.get(old_path)
        module = self.new.index.by_path.get(new_path) if new_path else None
        return module.dotted if module is not None else None

    # one public path

    def _compare_path(self, path: str, before: Target, new_entries: dict[str, Target]) -> None:
        if isinstance(before, Unresolved):
            self._not_analysed(path, before.reason)
            return
        if isinstance(before, External | ModuleRef):
            # A re-export of another distribution's name, or of a module under another public
            # path (``from .utils import logging`` reaching ``pkg.logging`` through a star
            # import), that disappeared. griffe's rule (diff.py, ``_member_incompatibilities``):
            # a public alias that is gone is a removed object, whatever it points to.
            reexport = isinstance(before, External) or before.dotted != path
            if reexport and self._resolve_new(path, new_entries) is None:
                self._dropped_reexport(path, before.path)
            return
        after = self._resolve_new(path, new_entries)
        if after is None:
            self._removals.setdefault(before.path, []).append(_Removal(path, before))
            return
        if isinstance(after, Unresolved):
            self._not_analysed(path, after.reason)
            return
        if isinstance(after, Found):
            if before.path == path and after.path != path:
                # Defined here at base, imported here from elsewhere at head (moved, or
                # replaced by another module's object): griffe 2.4 compares nothing at such
                # a path (diff.py, ``_type_based_yield``: the old object's path is marked seen
                # before ``_alias_incompatibilities`` resolves the alias, and the comparison
                # of the old object with the alias's target returns at once on that path).
                # The objects are still compared where a public alias reached them at base.
                return
            self._compare_objects(before, after, path)

    def _resolve_new(
        self, path: str, new_entries: dict[str, Target], *, public: bool = True
    ) -> Target | None:
        """What ``path`` names at head; with ``public``, only if callers may still use it."""
        if path in new_entries:
            return new_entries[path]
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if not self.new.index.exists(module):
                continue
            if self.new.index.module(module) is not None and self.new.surface(module) is None:
                return Unresolved(path, f"`{module}` could not be read at head")
            if public and cut < len(parts) and not self.new.is_importable(module, parts[cut]):
                return None
            target: Target | None = ModuleRef(module)
            for name in parts[cut:]:
                target = self.new.member(target, name)
                if target is None:
                    return None
            return target
        return None

    def _compare_objects(
        self, before: Found, after: Found, path: str, *, owner_changed: bool = False
    ) -> None:
        key = (before.path, after.path)
        if key in self._compared:
            return
        self._compared.add(key)
        old_kind, new_kind = kind_of(before.obj), kind_of(after.obj)
        if old_kind == "attribute" and new_kind == "function" and not _reads_only(before.obj):
            return  # ``insert = factory(Insert)`` -> ``def insert``: called the same way
        if old_kind != new_kind and (_alias_of(before.obj) or _alias_of(after.obj)):
            return  # ``X = Y``: the name still stands for a class or function, used as before
        if old_kind != new_kind:
            self._kind_changed(before, after, path)
            return
        if isinstance(before.obj, Function) and isinstance(after.obj, Function):
            self._compare_functions(before, after, path, owner_changed=owner_changed)
        elif isinstance(before.obj, Class) and isinstance(after.obj, Class):
            self._compare_classes(before, after, path)
        # An attribute's annotation is no contract to an API checker (griffe compares none):
        # ``width: int`` -> ``width: int | None`` is read and assigned as before.

    def _kind_changed(self, before: Found, after: Found, path: str) -> None:
        old_call, new_call = _call_signature(before.obj), _call_signature(after.obj)
        if (
            old_call is not None
            and new_call is not None
            and not parameter_breaks(old_call, new_call)
        ):
            return  # e.g. a function that became a class with the same call signature
        detail = f"changed from {_kind_word(before.obj)} to {_kind_word(after.obj)}"
        self._changed(before, after, path, BreakingKind.changed_signature, detail)

    def _compare_functions(
        self, before: Found, after: Found, path: str, *, owner_changed: bool = False
    ) -> None:
        assert isinstance(before.obj, Function) and isinstance(after.obj, Function)
        if before.obj.overloads:
            reasons = _overload_breaks(before.obj, after.obj)
        else:
            reasons = parameter_breaks(before.obj.params, after.obj.params)
        if reasons:
            self._changed(before, after, path, BreakingKind.changed_signature, "; ".join(reasons))
        # Return types as an API checker (griffe) judges them: only a removed annotation
        # breaks; another annotation in its place is the same call, returning what it did.
        # A class that dropped its override (or added one) now returns what the other method
        # declares: griffe reports no return type there (diff.py, ``_type_based_yield``'s
        # ``seen_paths``: an own member whose name became an inherited alias is never compared,
        # and an inherited one that became own is compared only if its base's method was not
        # checked before, which it is whenever the base class was). Parameters are still
        # compared above: a call the old method accepted may fail on the new one.
        if return_annotation_removed(before.obj, after.obj) and not owner_changed:
            detail = f"return annotation `{before.obj.returns}` was removed: typed callers lose it"
            self._changed(before, after, path, BreakingKind.changed_type, detail)

    def _compare_classes(self, before: Found, after: Found, path: str) -> None:
        assert isinstance(before.obj, Class) and isinstance(after.obj, Class)
        new_ancestors = set()
        for ancestor in self.new.mro(after):
            assert isinstance(ancestor.obj, Class)
            new_ancestors.add(_last(ancestor.qualname))
            new_ancestors.update(_base_name(b) for b in ancestor.obj.bases)
        lost = [
            base
            for base in before.obj.bases
            if re.fullmatch(r"[\w.]+(\[.*\])?", base)
            and _base_name(base) not in _TRIVIAL_BASES
            and not is_private_name(_base_name(base))
            and not self._names_at_head(after.module, base) & new_ancestors
            # griffe's rule: a base counts as dropped when the class has fewer bases; one base
            # swapped for another is the same shape of class to an API checker
            and len(after.obj.bases) < len(before.obj.bases)
        ]
        if lost:
            detail = "no longer inherits from " + ", ".join(f"`{b}`" for b in lost)
            self._changed(before, after, path, BreakingKind.changed_type, detail)
        new_members = self.new.class_members(after)
        for name, old_member in self.old.class_members(before).items():
            if is_private_name(name) or name in _HOUSEKEEPING:
                continue
            member_path = f"{path}.{name}"
            try:
                new_member = new_members.get(name)
                if new_member is None:
                    self._member_removed(before, old_member, member_path)
                else:
                    own_before = old_member.path.rpartition(".")[0] == before.path
                    own_after = new_member.path.rpartition(".")[0] == after.path
                    self._compare_objects(
                        old_member,
                        new_member,
                        member_path,
                        owner_changed=own_before != own_after,
                    )
                    if not own_before:
                        self._inherited_change(before, old_member, member_path)
            except Exception as exc:  # one member must never sink the class
                self._not_analysed(member_path, f"comparison failed: {type(exc).__name__}: {exc}")

    def _names_at_head(self, module: str, base: str) -> set[str]:
        """A base as written, and what the same words name at head (``X = Executable…``)."""
        names = {_base_name(base)}
        target = self.new.resolve_dotted(module, re.sub(r"\[.*$", "", base.strip()))
        if isinstance(target, Found):
            if isinstance(target.obj, Class):
                names.add(_last(target.qualname))
            elif _alias_of(target.obj):
                names.add(_base_name(_alias_of(target.obj) or ""))
        return names

    def _inherited_change(self, cls: Found, member: Found, path: str) -> None:
        """A changed member ``cls`` inherits: the finding at its definition lists ``cls`` too."""
        for finding in self._by_definition.get(member.path, []):
            if path not in finding.paths:
                finding.paths.append(path)
            if cls.qualname not in finding.inherited_by:
                finding.inherited_by.append(cls.qualname)

    def _member_removed(self, cls: Found, member: Found, path: str) -> None:
        owner_path = member.path.rpartition(".")[0]
        if owner_path != cls.path:
            # Inherited: if the defining class still has it, this class stopped inheriting it.
            owner_now = self._resolve_new(owner_path, {}, public=False)
            if (
                isinstance(owner_now, Found)
                and isinstance(owner_now.obj, Class)
                and member.obj.name in owner_now.obj.members
            ):
                detail = f"no longer inherits `{member.obj.name}` from `{_last(owner_path)}`"
                self._changed(cls, cls, path, BreakingKind.removed_export, detail, member)
                return
            finding = self._removed(member, path)
            if finding is not None and cls.qualname not in finding.inherited_by:
                finding.inherited_by.append(cls.qualname)
            return
        self._removed(member, path)

    # recording

    def _changed(
        self,
        before: Found,
        after: Found,
        path: str,
        kind: BreakingKind,
        detail: str,
        shown: Found | None = None,
    ) -> None:
        module = self.new.index.module(after.module)
        if module is None:
            return
        finding = self._add(
            module.path,
            after.qualname,
            kind,
            detail,
            render(shown or before),
            render(after) if shown is None else None,
            after.obj.line,
        )
        finding.paths.extend((path, before.path))
        known = self._by_definition.setdefault(before.path, [])
        if not any(item is finding for item in known):
            known.append(finding)

    def _removed(self, target: Found, path: str, moved_to: str | None = None) -> _Finding | None:
        module = self.old.index.module(target.module)
        if module is None:
            return None
        detail = f"{_kind_word(target.obj)} `{target.qualname}` was removed"
        if moved_to is not None:
            detail = (
                f"{_kind_word(target.obj)} `{target.qualname}` is no longer defined in "
                f"`{target.module}` {still_defined_note(moved_to)}"
            )
        finding = self._add(
            module.path,
            target.qualname,
            BreakingKind.removed_export,
            detail,
            render(target),
            None,
            target.obj.line,
        )
        finding.paths.append(path)
        return finding

    def _add(
        self,
        file: str,
        symbol: str,
        kind: BreakingKind,
        detail: str,
        before: str | None,
        after: str | None,
        line: int | None,
    ) -> _Finding:
        key = (file, symbol, kind)
        finding = self.findings.get(key)
        if finding is None:
            finding = _Finding(file, symbol, kind, [], before, after, line or None)
            self.findings[key] = finding
        finding.details.append(detail)
        return finding

    def _not_analysed(self, path: str, reason: str) -> None:
        if len(self.not_analysed) >= _MAX_NOT_ANALYSED_OBJECTS:
            return
        parts = path.split(".")
        modules = (self.old.index.module(".".join(parts[:cut])) for cut in range(len(parts), 0, -1))
        info = next((m for m in modules if m is not None), None)
        file = info.path if info is not None else path
        self.not_analysed.append(NotAnalysed(path=file, symbol=path, reason=reason))

    # removals, renames and dropped re-exports

    def _resolve_removals(
        self, old_entries: dict[str, Target], new_entries: dict[str, Target]
    ) -> None:
        by_parent: dict[str, list[tuple[str, list[_Removal]]]] = {}
        for canonical, removals in sorted(self._removals.items()):
            parent = removals[0].path.rpartition(".")[0]
            by_parent.setdefault(parent, []).append((canonical, removals))
        for parent, group in by_parent.items():
            added = {
                path: target
                for path, target in new_entries.items()
                if path.rpartition(".")[0] == parent
                and path not in old_entries
                and isinstance(target, Found)
            }
            self._resolve_group(group, added)

    def _resolve_group(
        self, group: list[tuple[str, list[_Removal]]], added: Mapping[str, Target]
    ) -> None:
        # Both sides carry (public path or canonical name, payload) so one pairing fits both.
        # Bodies are fingerprinted (a parse of their file) only where a shape has a partner.
        old_found = [(removals[0].target, (canonical, removals)) for canonical, removals in group]
        new_found = [(t, (p, t)) for p, t in added.items() if isinstance(t, Found)]
        old_shapes = {(kind_of(t.obj), _shape(t)) for t, _ in old_found}
        new_shapes = {(kind_of(t.obj), _shape(t)) for t, _ in new_found}
        both = old_shapes & new_shapes
        old_candidates: list[RenameCandidate[tuple[str, Any]]] = [
            _candidate(target, self.old, item, both) for target, item in old_found
        ]
        new_candidates: list[RenameCandidate[tuple[str, Any]]] = [
            _candidate(target, self.new, item, both) for target, item in new_found
        ]
        renamed: set[str] = set()
        for old_candidate, new_candidate in pair_renames(old_candidates, new_candidates):
            canonical, removals = old_candidate.item
            new_path, new_target = new_candidate.item
            renamed.add(canonical)
            self._renamed(removals, new_path, new_target)
        for canonical, removals in group:
            if canonical not in renamed:
                self._record_removal(canonical, removals)

    def _renamed(self, removals: list[_Removal], new_path: str, new_target: Target) -> None:
        before = removals[0].target
        module = self.old.index.module(before.module)
        if module is None:
            return
        detail = f"{_kind_word(before.obj)} `{before.qualname}` was renamed to `{new_path}`"
        assert isinstance(new_target, Found)
        finding = self._add(
            module.path,
            before.qualname,
            BreakingKind.renamed_export,
            detail,
            render(before),
            render(new_target),
            new_target.obj.line,
        )
        finding.new_name = new_path.rpartition(".")[2]
        finding.paths.extend(r.path for r in removals)

    def _record_removal(self, canonical: str, removals: list[_Removal]) -> None:
        target = removals[0].target
        still_there = self._resolve_new(canonical, {}, public=False)
        if (
            isinstance(still_there, Found | ModuleRef)
            or self.old.index.module(target.module) is None
        ):
            # The object lives on; what went away is the public path (a dropped re-export).
            for removal in removals:
                self._dropped_reexport(removal.path, canonical)
            return
        moved_to = self._moved_definition(canonical, removals)
        finding = self._removed(target, removals[0].path, moved_to)
        if finding is not None:
            finding.paths.extend(r.path for r in removals[1:])

    def _moved_definition(self, canonical: str, removals: list[_Removal]) -> str | None:
        """Where a top-level function or class now lives when another path callers had to
        it still reaches a definition of the same kind: sympy 1.0 moved ``collect`` from
        ``simplify.simplify`` to ``simplify.radsimp``, and ``sympy.simplify``, which imported
        it at base, still does. Only the paths that went away are broken."""
        before = removals[0].target
        if "." in before.qualname:
            return None  # a member: its class's findings say what happened
        gone = {removal.path for removal in removals}
        parts = before.module.split(".")
        packages = [".".join(parts[:cut]) for cut in range(len(parts) - 1, 0, -1)]
        paths = [
            *self._public_paths.get(canonical, []),
            *(f"{p}.{before.qualname}" for p in packages),
        ]
        for path in dict.fromkeys(paths):
            module, _, name = path.rpartition(".")
            if path in gone or not self.new.index.exists(module):
                continue
            then = self.old.lookup(module, name)
            now = self.new.lookup(module, name)
            if (
                isinstance(then, Found)
                and then.path == canonical
                and isinstance(now, Found)
                and kind_of(now.obj) == kind_of(before.obj)
            ):
                return now.path
        return None

    def _dropped_reexport(self, path: str, canonical: str) -> None:
        module_name, _, name = path.rpartition(".")
        module = self.old.index.module(module_name)
        if module is None:
            return
        surface = self.old.surface(module_name)
        binding = surface.bindings.get(name) if surface is not None else None
        line = binding.line if binding is not None else None
        detail = f"`{name}` is no longer exported from `{module_name}`"
        if canonical != path:
            detail += f" {still_defined_note(canonical)}"
        finding = self._add(
            module.path,
            name,
            BreakingKind.removed_export,
            detail,
            f"{name} (re-export of {canonical})",
            None,
            line,
        )
        finding.paths.append(path)


# --- describing objects -------------------------------------------------------------------


def _last(path: str) -> str:
    return path.rpartition(".")[2]


# ``class D(Dict[K, V])`` subclasses ``dict``: typing's aliases name the builtin classes.
_TYPING_ALIASES = {
    "Dict": "dict",
    "List": "list",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
    "DefaultDict": "defaultdict",
    "Deque": "deque",
    "Counter": "Counter",
    "ChainMap": "ChainMap",
}


def _base_name(text: str) -> str:
    name = _last(text.split("[", 1)[0].strip())
    return _TYPING_ALIASES.get(name, name)


def _reads_only(obj: Definition) -> bool:
    """Callers only read it: a property (arrow 1.0's ``Arrow.timestamp`` became a method, so
    ``a.timestamp`` is now a bound method) or an attribute holding a literal."""
    return (isinstance(obj, Function) and obj.is_property) or _holds_data(obj)


def _holds_data(obj: Definition) -> bool:
    """An attribute whose value is a literal: no caller ever called it."""
    if not isinstance(obj, Attribute) or not obj.value:
        return False
    try:
        ast.literal_eval(obj.value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _alias_of(obj: Definition) -> str | None:
    """``X = some.Name``: the dotted name an attribute merely renames."""
    if not isinstance(obj, Attribute) or obj.annotation or not obj.value:
        return None
    value = obj.value.strip()
    if value in ("None", "True", "False") or not re.fullmatch(r"[A-Za-z_][\w.]*", value):
        return None
    return value


def return_annotation_removed(before: Function, after: Function) -> bool:
    """griffe's rule for return types: an annotated function whose new version has none.

    A property is an attribute to griffe (no return type compared), and so it is here.
    """
    if before.is_property or after.is_property:
        return False
    return before.returns is not None and after.returns is None


def _call_signature(obj: Definition) -> tuple[Param, ...] | None:
    """How the object is called: a function's parameters, a class's ``__init__`` without self."""
    if isinstance(obj, Function) and not obj.is_property:
        return obj.params
    if isinstance(obj, Class):
        init = obj.members.get("__init__")
        if isinstance(init, Function):
            return init.params[1:]
    return None


def _kind_word(obj: Definition) -> str:
    if isinstance(obj, Function):
        return "property" if obj.is_property else "function"
    if isinstance(obj, Class):
        return "class"
    return "attribute"


def render(target: Found) -> str:
    """A readable one-line declaration, e.g. ``Client.fetch(self, url: str) -> bytes``."""
    obj, name = target.obj, target.qualname
    if isinstance(obj, Function):
        prefix = "async " if obj.is_async else ""
        returns = f" -> {obj.returns}" if obj.returns else ""
        return f"{prefix}{name}({render_parameters(obj.params)}){returns}"
    if isinstance(obj, Class):
        return f"class {name}({', '.join(obj.bases)})" if obj.bases else f"class {name}"
    annotation = f": {obj.annotation}" if obj.annotation else ""
    value = f" = {obj.value}" if obj.value else ""
    return f"{name}{annotation}{value}"


def render_parameters(params: tuple[Param, ...]) -> str:
    """Parameters as written, with the ``/`` and ``*`` markers Python needs."""
    rendered: list[str] = []
    for index, param in enumerate(params):
        previous = params[index - 1].kind if index else None
        if previous == "positional_only" and param.kind != "positional_only":
            rendered.append("/")
        if param.kind == "keyword_only" and previous not in ("keyword_only", "var_positional"):
            rendered.append("*")
        star = {"var_positional": "*", "var_keyword": "**"}.get(param.kind, "")
        text = f"{star}{param.name}"
        if param.annotation:
            text += f": {param.annotation}"
        if param.default is not None:
            text += f" = {param.default}" if param.annotation else f"={param.default}"
        rendered.append(text)
    if params and params[-1].kind == "positional_only":
        rendered.append("/")
    return ", ".join(rendered)


def _shape(target: Found) -> str:
    text = render(target)
    return "§" + text[len(target.qualname) :] if text.startswith(target.qualname) else text


def _body_fingerprint(target: Found, view: PythonView) -> str:
    """The definition's code without its name, to tell a rename from a coincidence."""
    module = view.index.module(target.module)
    if module is None:
        return ""
    return view.definition_fingerprint(module.path, target.obj.line)


def _candidate(
    target: Found, view: PythonView, item: _T, paired_shapes: set[tuple[str, str]]
) -> RenameCandidate[_T]:
    kind = kind_of(target.obj)
    shape = _shape(target)
    generic = isinstance(target.obj, Attribute) or shape in ("§()", "§(self)", "§(cls)")
    wanted = (kind, shape) in paired_shapes and not isinstance(target.obj, Attribute)
    body = _body_fingerprint(target, view) if wanted else ""
    return RenameCandidate(
        name=target.qualname,
        exact_key=(kind, shape, body),
        loose_key=None if generic else (kind, shape),
        item=item,
    )
