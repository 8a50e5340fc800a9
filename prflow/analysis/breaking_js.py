"""Breaking changes in JavaScript/TypeScript exports, by comparing base and head surfaces.

Kinds follow the report's severities: a missing export is ``removed_export``,
one that reappears under another name with the same shape is
``renamed_export``; parameter changes that can break a call are
``changed_signature``; return types, variable/property types and the members
of interfaces, object types and enums are ``changed_type``. A removed
interface member is a type change too: callers compiled against it break at
type-check time, not at the call's arity.
"""

from __future__ import annotations

import re
from collections.abc import Hashable

from prflow.analysis.findings import SEVERITY_BY_KIND, BreakingChange, BreakingKind, Language
from prflow.analysis.js_exports import JsExport, extract_exports, is_js_path, is_typescript_path
from prflow.analysis.js_surface import PackageSurface, SurfaceReader, owning_root, package_roots
from prflow.analysis.renames import RenameCandidate, pair_renames
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import SourceTree

_NO_SIGNATURE = {"reexport", "star", "namespace", "value"}
_TYPE_ONLY = {"interface", "type"}
_KIND_WORDS = {"reexport": "re-export", "star": "star re-export"}


def find_js_breaking_changes(
    changed: list[ChangedFile], base: SourceTree, head: SourceTree
) -> list[BreakingChange]:
    """Breaking changes to the public surface of every package with changed JS/TS files.

    A package (a folder with ``package.json`` and an entry point we can find)
    is compared by exported name across its entry points; files outside such
    a package are compared one by one, as modules of their own.
    """
    relevant = [
        item
        for item in changed
        if item.status is not FileStatus.added and is_js_path(item.old_path or item.path)
    ]
    if not relevant:
        return []
    base_reader, head_reader = SurfaceReader(base), SurfaceReader(head)
    roots = package_roots(base_reader.paths)
    changes: list[BreakingChange] = []
    loose: list[ChangedFile] = []
    packages: dict[str, list[ChangedFile]] = {}
    for item in relevant:
        root = owning_root(item.old_path or item.path, roots)
        if root is None:
            loose.append(item)
        else:
            packages.setdefault(root, []).append(item)
    for root, items in sorted(packages.items()):
        old = base_reader.surface(root)
        if old is None:
            loose.extend(items)
            continue
        new = head_reader.surface(root)
        if new is None or new.unreadable or old.unreadable:
            continue  # an entry point or a file it exports does not parse: say nothing
        changes += compare_surfaces(old, new)
    return changes + _compare_files(loose, base, head)


def compare_surfaces(old: PackageSurface, new: PackageSurface) -> list[BreakingChange]:
    """Differences by exported name; each finding is filed at the declaring file."""
    before = {name: item.export for name, item in old.names.items()}
    after = {name: item.export for name, item in new.names.items()}
    files = {name: item.file for name, item in old.names.items()}
    new_files = {name: item.file for name, item in new.names.items()}
    found: dict[tuple[str, str, BreakingKind], BreakingChange] = {}
    for change in compare_exports(old.entries.get(".", ""), before, after):
        name = change.symbol
        file = files.get(name) or new_files.get(name) or change.file
        symbol = name.split(":", 1)[-1]
        language: Language = "typescript" if is_typescript_path(file) else "javascript"
        located = change.model_copy(
            update={"file": file, "symbol": symbol, "language": language, "public_paths": [name]}
        )
        key = (file, symbol, change.kind)
        if key in found:
            paths = [*found[key].public_paths, name]
            found[key] = found[key].model_copy(update={"public_paths": paths})
        else:
            found[key] = located
    return list(found.values())


def _compare_files(
    changed: list[ChangedFile], base: SourceTree, head: SourceTree
) -> list[BreakingChange]:
    """Breaking changes to the exports of files that belong to no package we can read."""
    changes: list[BreakingChange] = []
    for item in changed:
        old_path = item.old_path or item.path
        old_text = base.read_text(old_path)
        old = extract_exports(old_path, old_text) if old_text is not None else None
        if old is None:
            continue
        new: dict[str, JsExport] | None = {}
        if item.status is not FileStatus.deleted and is_js_path(item.path):
            new_text = head.read_text(item.path)
            new = extract_exports(item.path, new_text) if new_text is not None else {}
        if new is None:  # head does not parse: say nothing rather than guess
            continue
        moved_to = (
            item.path if old_path != item.path and item.status is not FileStatus.deleted else None
        )
        changes += compare_exports(old_path, old, new, moved_to)
    return changes


def compare_exports(
    file: str, old: dict[str, JsExport], new: dict[str, JsExport], moved_to: str | None = None
) -> list[BreakingChange]:
    """Breaking changes between two export surfaces of ``file``.

    ``moved_to`` is the file's head path after a git rename: every export's
    import path changed, so each one still exported there is a rename.
    """
    language: Language = "typescript" if is_typescript_path(file) else "javascript"
    report = _Report(file, language)
    old = {name: item for name, item in old.items() if item.kind != "star"}
    new = {name: item for name, item in new.items() if item.kind != "star"}
    removed = [name for name in old if name not in new]
    gone_parents = set(removed)
    removed = [name for name in removed if old[name].parent not in gone_parents]
    if moved_to is not None:
        for name in list(old):
            if name in new and not old[name].parent:
                report.renamed(old[name], new[name], f"{moved_to}#{name}")
        _compare_common(report, old, new, skip_members=True)
    else:
        _compare_common(report, old, new, skip_members=False)
    added = [name for name in new if name not in old]
    for parent in sorted({old[name].parent for name in removed}):
        _resolve_removed(
            report,
            [old[n] for n in removed if old[n].parent == parent],
            [new[n] for n in added if new[n].parent == parent],
        )
    return report.changes


def _compare_common(
    report: _Report, old: dict[str, JsExport], new: dict[str, JsExport], *, skip_members: bool
) -> None:
    for name, before in old.items():
        after = new.get(name)
        if after is None or (skip_members and not before.parent):
            continue
        for kind, detail in _differences(before, after):
            report.changed(before, after, kind, detail)


def _resolve_removed(report: _Report, removed: list[JsExport], added: list[JsExport]) -> None:
    pairs = pair_renames([_candidate(e) for e in removed], [_candidate(e) for e in added])
    renamed = {old.item.name for old, _ in pairs}
    for old, new in pairs:
        report.renamed(old.item, new.item, new.item.name)
    for export in removed:
        if export.name not in renamed:
            report.removed(export)


def _shape(export: JsExport) -> Hashable:
    params = tuple(p.render() for p in export.params) if export.params is not None else None
    return (export.kind, params, export.returns, export.type_text, export.members)


def _candidate(export: JsExport) -> RenameCandidate[JsExport]:
    if export.kind in _NO_SIGNATURE:
        return RenameCandidate(export.name, ("unique", export.name), None, export)
    shape = _shape(export)
    trivial = not export.params and not export.returns and not export.type_text
    loose = None if trivial or export.kind in ("variable", "property") else shape
    return RenameCandidate(export.name, (shape, export.body), loose, export)


def _differences(before: JsExport, after: JsExport) -> list[tuple[BreakingKind, str]]:
    """What changed incompatibly in one export, as (kind, one-line reason) pairs."""
    if before.kind != after.kind:
        if (before.kind in _TYPE_ONLY) == (after.kind in _TYPE_ONLY):
            # variable -> class, interface -> type: same role for consumers; members still compared
            return []
        return [(BreakingKind.changed_signature, f"changed from {before.kind} to {after.kind}")]
    if before.kind in _NO_SIGNATURE:
        return []
    found: list[tuple[BreakingKind, str]] = []
    if before.is_callable and after.is_callable:
        found += _callable_differences(before, after)
    if before.kind == "class":
        old_base, new_base = _extends(before.type_text), _extends(after.type_text)
        if old_base and old_base != new_base:
            found.append(
                (
                    BreakingKind.changed_type,
                    f"base class changed from {old_base} to {new_base or 'none'}",
                )
            )
    elif before.members is not None and after.members is not None:
        found += _member_differences(before, after)
    elif before.type_text and after.type_text and before.type_text != after.type_text:
        found.append(
            (
                BreakingKind.changed_type,
                f"type changed from {before.type_text} to {after.type_text}",
            )
        )
    if before.kind == "property" and after.optional and not before.optional:
        found.append((BreakingKind.changed_type, "property became optional (may be undefined)"))
    return found


def _callable_differences(before: JsExport, after: JsExport) -> list[tuple[BreakingKind, str]]:
    found: list[tuple[BreakingKind, str]] = []
    if before.overloads > 1 or after.overloads > 1:
        if before.declaration != after.declaration:
            found.append((BreakingKind.changed_signature, "overload signatures changed"))
        return found
    old_params, new_params = before.params or (), after.params or ()
    takes_rest = any(p.rest for p in new_params)
    for index, old in enumerate(old_params):
        if index >= len(new_params):
            if not takes_rest:
                found.append(
                    (BreakingKind.changed_signature, f"parameter `{old.name}` was removed")
                )
            continue
        new = new_params[index]
        if old.optional and not new.optional and not new.rest:
            found.append(
                (BreakingKind.changed_signature, f"parameter `{new.name}` became required")
            )
        if old.type and new.type and old.type != new.type:
            found.append(
                (
                    BreakingKind.changed_signature,
                    f"type of parameter `{new.name}` changed from {old.type} to {new.type}",
                )
            )
    for new in new_params[len(old_params) :]:
        if not new.optional and not new.rest:
            found.append(
                (BreakingKind.changed_signature, f"required parameter `{new.name}` was added")
            )
    old_local, new_local = dict(before.local_types), dict(after.local_types)
    for type_name in sorted(old_local.keys() & new_local.keys()):
        if old_local[type_name] != new_local[type_name]:
            found.append(
                (
                    BreakingKind.changed_signature,
                    f"parameter type `{type_name}` changed from {old_local[type_name]} "
                    f"to {new_local[type_name]}",
                )
            )
    if before.returns and after.returns and before.returns != after.returns:
        found.append(
            (
                BreakingKind.changed_type,
                f"return type changed from {before.returns} to {after.returns}",
            )
        )
    if before.type_text and after.type_text and before.type_text != after.type_text:
        found.append(
            (
                BreakingKind.changed_type,
                f"type changed from {before.type_text} to {after.type_text}",
            )
        )
    return found


def _member_differences(before: JsExport, after: JsExport) -> list[tuple[BreakingKind, str]]:
    old_members, new_members = dict(before.members or ()), dict(after.members or ())
    notes: list[str] = []
    for name, text in old_members.items():
        if name not in new_members:
            notes.append(f"member `{name}` was removed")
        elif new_members[name] != text:
            notes.append(f"member `{text}` became `{new_members[name]}`")
    if before.kind != "enum":
        for name, text in new_members.items():
            if name not in old_members and _is_required_member(name, text):
                notes.append(f"required member `{text}` was added")
    if not notes and before.type_text != after.type_text:
        notes.append(f"type changed from {before.type_text} to {after.type_text}")
    return [(BreakingKind.changed_type, note) for note in notes]


def _is_required_member(name: str, text: str) -> bool:
    return (
        not text.startswith((f"{name}?", f"readonly {name}?")) and "(" not in text.split(":", 1)[0]
    )


def _extends(heritage: str | None) -> str | None:
    match = re.search(r"extends\s+(.+?)(?:\s+implements\b|$)", heritage or "")
    return match.group(1) if match else None


class _Report:
    """Accumulates one file's findings, merging reasons for the same symbol and kind."""

    def __init__(self, file: str, language: Language) -> None:
        self.file = file
        self.language = language
        self._by_key: dict[tuple[str, BreakingKind], BreakingChange] = {}

    @property
    def changes(self) -> list[BreakingChange]:
        return sorted(self._by_key.values(), key=lambda c: (c.line or 0, c.symbol, c.kind))

    def removed(self, export: JsExport) -> None:
        what = "member" if export.parent else _KIND_WORDS.get(export.kind, export.kind)
        detail = f"exported {what} `{export.name}` was removed"
        self._put(export, None, BreakingKind.removed_export, detail)

    def renamed(self, before: JsExport, after: JsExport, new_name: str) -> None:
        detail = f"`{before.name}` is now exported as `{new_name}`"
        self._put(before, after, BreakingKind.renamed_export, detail, new_name=new_name)

    def changed(self, before: JsExport, after: JsExport, kind: BreakingKind, detail: str) -> None:
        key = (before.name, kind)
        existing = self._by_key.get(key)
        if existing is not None:
            self._by_key[key] = existing.model_copy(
                update={"detail": f"{existing.detail}; {detail}"}
            )
            return
        self._put(before, after, kind, detail)

    def _put(
        self,
        before: JsExport,
        after: JsExport | None,
        kind: BreakingKind,
        detail: str,
        new_name: str | None = None,
    ) -> None:
        self._by_key[(before.name, kind)] = BreakingChange(
            file=self.file,
            symbol=before.name,
            kind=kind,
            severity=SEVERITY_BY_KIND[kind],
            language=self.language,
            detail=detail,
            before=before.declaration,
            after=after.declaration if after is not None else None,
            new_name=new_name,
            line=(after or before).line,
        )
