"""Breaking changes in JavaScript/TypeScript exports, by comparing base and head surfaces.

A package (a folder with ``package.json`` and an entry point we can find) is
compared by the names its entry points export, so a declaration moved to
another file is no change. What tree-sitter can judge from the text alone is
judged structurally: a removed export or member, a parameter removed, a
required one added or an optional one made required, an overload no longer
taking as many arguments, interface members removed, added as required or
made optional, enum members gone or renumbered, and unions of literals that
lost or gained members. A type spelled differently (``DateType | number |
string`` -> ``DateArg<DateType>``) is not judged from its text.

When the repository has the TypeScript compiler, every exported name whose
declaration, or something it mentions, changed is handed to it
(:mod:`prflow.analysis.ts_compiler`); its verdict decides for those names.

Kinds follow the report's severities: a missing export is ``removed_export``,
one that reappears under another name with the same shape is
``renamed_export``; parameter changes are ``changed_signature``; type and
member changes are ``changed_type``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from prflow.analysis.findings import (
    SEVERITY_BY_KIND,
    BreakingChange,
    BreakingKind,
    Language,
    NotAnalysed,
)
from prflow.analysis.js_exports import (
    JsExport,
    JsParam,
    MemberSignature,
)
from prflow.analysis.js_surface import (
    PackageSurface,
    SurfaceReader,
    js_parser,
    owning_root,
    package_roots,
)
from prflow.analysis.js_textual import (
    NO_COMPILER,
    hidden_pairs,
    retyped_values,
    rewritten_members,
    spread,
    through_hidden,
    through_nested,
    through_removed,
)
from prflow.analysis.parse_cache import InputLimits, MemoryParseCache, ParseCache, ParsedFiles
from prflow.analysis.renames import RenameCandidate, pair_renames
from prflow.analysis.ts_compiler import CheckRequest, CompilerUnavailable, TypeJudge
from prflow.analysis.ts_types import Flow, incompatible
from prflow.changes import ChangedFile, FileStatus
from prflow.js_files import is_declaration_file, is_js_file, is_typescript_file
from prflow.source_tree import SourceTree

_NO_SIGNATURE = {"reexport", "star", "namespace", "value"}
_TYPE_ONLY = {"interface", "type"}
_KIND_WORDS = {"reexport": "re-export", "star": "star re-export"}
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_COMPILER_SAYS = "the TypeScript compiler: "


@dataclass
class JsApiDiff:
    changes: list[BreakingChange]
    not_analysed: list[NotAnalysed] = field(default_factory=list)
    judge: str | None = None
    """Who judged type changes: the TypeScript compiler (which one), or tree-sitter alone."""


def find_js_breaking_changes(
    changed: list[ChangedFile],
    base: SourceTree,
    head: SourceTree,
    cache: ParseCache | None = None,
    limits: InputLimits | None = None,
    compiler: TypeJudge | None = None,
    progress: Callable[[str], None] | None = None,
) -> JsApiDiff:
    """Breaking changes to the public surface of every package with changed JS/TS files.

    Files outside any package we can read are compared one by one, as modules
    of their own. Parses are cached by git blob SHA in ``cache``.
    """
    relevant = [
        item
        for item in changed
        if item.status is not FileStatus.added
        and (is_js_file(item.old_path or item.path) or _entry_fields_changed(item, base, head))
    ]
    if not relevant:
        return JsApiDiff([])
    parsed = ParsedFiles(
        js_parser(), cache or MemoryParseCache(), limits or InputLimits(), progress=progress
    )
    base_reader, head_reader = SurfaceReader(base, parsed), SurfaceReader(head, parsed)
    touched = frozenset(p for item in changed for p in (item.path, item.old_path) if p)
    changed_words = _declared_in(touched, base_reader, head_reader)
    roots = package_roots(base_reader.paths)
    diff = JsApiDiff([])
    loose: list[ChangedFile] = []
    packages: dict[str, list[ChangedFile]] = {}
    for item in relevant:
        root = owning_root(item.old_path or item.path, roots)
        if root is None:
            loose.extend([item] if is_js_file(item.old_path or item.path) else [])
        else:
            packages.setdefault(root, []).append(item)
    for root, items in sorted(packages.items()):
        old = base_reader.surface(root)
        new = head_reader.surface(root) if old is not None else None
        if old is not None and new is None and _manifest_kept(root, head_reader):
            diff.changes += _entry_lost(old)
            continue
        if old is None or new is None:
            loose.extend(item for item in items if not _is_manifest(item.path))
            continue
        judge = _CompilerJudge(compiler, base, head) if compiler is not None else None
        found = compare_surfaces(old, new, touched, changed_words, judge)
        diff.changes += found.changes
        diff.not_analysed += found.not_analysed
        if judge is not None and judge.answered:
            diff.judge = compiler.describe() if compiler is not None else None
        elif diff.judge is None or diff.judge.startswith("tree-sitter"):
            reason = judge.failure if judge is not None else "no TypeScript compiler was given"
            diff.judge = "tree-sitter alone" + (f" ({reason})" if reason else "")
    diff.changes += _compare_files(loose, base_reader, head_reader)
    diff.not_analysed += [parsed.skipped[path] for path in sorted(parsed.skipped)]
    return diff


def compare_surfaces(
    old: PackageSurface,
    new: PackageSurface,
    touched: frozenset[str] = frozenset(),
    changed_words: frozenset[str] = frozenset(),
    judge: _CompilerJudge | None = None,
) -> JsApiDiff:
    """Differences by exported name; each finding is filed at the declaring file.

    ``touched`` are the changed paths and ``changed_words`` the names they
    declare: the exports they reach are what the compiler is asked about.
    """
    not_analysed = _unreadable_parts(old, new)
    unsure = set(old.damaged) | set(new.damaged)
    before = {
        name: replace(item.export, name=name)
        for name, item in old.names.items()
        if not item.export.internal and _short(name) not in unsure
    }
    after = {name: replace(item.export, name=name) for name, item in new.names.items()}
    files = {name: item.file for name, item in old.names.items()}
    new_files = {name: item.file for name, item in new.names.items()}
    changes = compare_exports(old.entries.get(".", ""), before, after, removals=not new.unreadable)
    judged: set[str] = set()
    if judge is not None:
        candidates = _candidates(old, before, after, touched, changed_words)
        candidates += sorted(name for name in unsure if name not in before)
        changes, note, judged = judge.decide(old, new, candidates, changes, before, after)
        not_analysed = [n for n in not_analysed if n.symbol not in judged] + note
    if not judged:
        aliases = (old.aliases, new.aliases)
        hidden = (old.hidden, new.hidden)
        unique = frozenset(old.unique_symbols | new.unique_symbols)
        changes += _without_compiler(
            old.entries.get(".", ""), before, after, changes, aliases, hidden, unique
        )
    changes += _lost_to_node10(old, new, _public_names(old), changes)
    found: dict[tuple[str, str, BreakingKind], BreakingChange] = {}
    for change in changes:
        name = change.symbol
        file = files.get(name) or new_files.get(name) or change.file
        symbol = name.split(":", 1)[-1]
        language: Language = "typescript" if is_typescript_file(file) else "javascript"
        located = change.model_copy(
            update={"file": file, "symbol": symbol, "language": language, "public_paths": [name]}
        )
        key = (file, symbol, change.kind)
        if key in found:
            paths = [*found[key].public_paths, name]
            found[key] = found[key].model_copy(update={"public_paths": paths})
        else:
            found[key] = located
    return JsApiDiff(list(found.values()), not_analysed)


def _without_compiler(
    file: str,
    before: dict[str, JsExport],
    after: dict[str, JsExport],
    found: list[BreakingChange],
    aliases: tuple[dict[str, str], dict[str, str]],
    hidden: tuple[dict[str, list[JsExport]], dict[str, list[JsExport]]] = ({}, {}),
    unique_symbols: frozenset[str] = frozenset(),
) -> list[BreakingChange]:
    """Tree-sitter's own judgements where no compiler answered (:mod:`js_textual`).

    Declarations the entry's names use without exporting them are judged by
    the same rules; their changes land on the exported names that use them.
    """
    report = _Report(file, "typescript" if is_typescript_file(file) else "javascript")
    old_hidden, new_hidden = hidden_pairs(before, hidden, aliases)
    hidden_found = compare_exports(file, old_hidden, new_hidden)
    both_before, both_after = {**old_hidden, **before}, {**new_hidden, **after}
    for name, reasons in sorted(rewritten_members(both_before, both_after, aliases).items()):
        if name in before and name in after:
            detail = "; ".join(reasons) + NO_COMPILER
            report.changed(before[name], after[name], BreakingKind.changed_type, detail)
        elif name in old_hidden:
            hidden_found.append(_hidden_change(file, old_hidden[name]))
    changed = {_top(c.symbol) for c in [*found, *report.changes, *hidden_found]}
    old_scope, new_scope = _Scope(both_before), _Scope(both_after)
    for name, cause in sorted(spread(both_before, both_after, changed).items()):
        if both_before[name].kind == "interface" and both_after[name].kind == "interface":
            old_all = old_scope.members(both_before[name])
            if old_all is not None and old_all == new_scope.members(both_after[name]):
                continue  # its members, inherited ones included, read the same
        if name in old_hidden:
            hidden_found.append(_hidden_change(file, old_hidden[name]))
            continue
        detail = f"changes with `{cause}`, which it mentions{NO_COMPILER}"
        report.changed(before[name], after[name], BreakingKind.changed_type, detail)
    declared = {name: items[0] for name, items in hidden[1].items() if items}
    declared.update({name: export for name, export in after.items() if "." not in name})
    for name, reason in sorted(retyped_values(before, after, declared).items()):
        if name not in changed:
            report.changed(
                before[name], after[name], BreakingKind.changed_type, reason + NO_COMPILER
            )
    changed |= {_top(c.symbol) for c in report.changes}
    nested = [c.symbol for c in [*found, *report.changes]]
    for name, cause in sorted(through_nested(before, after, nested).items()):
        if name not in changed and name in before and name in after:
            detail = f"uses `{cause}`, which changed{NO_COMPILER}"
            report.changed(before[name], after[name], BreakingKind.changed_type, detail)
    changed |= {_top(c.symbol) for c in report.changes}
    for name, cause in sorted(through_removed(before, after).items()):
        if name not in changed and name in before and name in after:
            detail = f"rewritten without `{cause}`, which is no longer exported{NO_COMPILER}"
            report.changed(before[name], after[name], BreakingKind.changed_type, detail)
    changed |= {_top(c.symbol) for c in report.changes}
    changed_hidden = {_top(c.symbol) for c in hidden_found}
    reached = through_hidden(
        before, after, (old_hidden, new_hidden), changed_hidden, unique_symbols
    )
    for name, cause in sorted(reached.items()):
        if name in changed or name not in before or name not in after:
            continue
        detail = f"uses `{cause}`, which is not exported and changed{NO_COMPILER}"
        report.changed(before[name], after[name], BreakingKind.changed_type, detail)
    return report.changes


def _is_manifest(path: str) -> bool:
    return path == "package.json" or path.endswith("/package.json")


_ENTRY_FIELDS = ("exports", "types", "typings", "typesVersions", "main", "module")


def _entry_fields_changed(item: ChangedFile, base: SourceTree, head: SourceTree) -> bool:
    """A ``package.json`` whose entry-point fields changed: where consumers find the package's
    names moved (a dependency bump alone is no reason to read the package)."""
    if not _is_manifest(item.path) or item.status is not FileStatus.modified:
        return False
    fields = []
    for tree in (base, head):
        try:
            data = json.loads(tree.read_text(item.path) or "{}")
        except ValueError:
            return False
        fields.append({k: data.get(k) for k in _ENTRY_FIELDS} if isinstance(data, dict) else {})
    return fields[0] != fields[1]


def _public_names(surface: PackageSurface) -> dict[str, JsExport]:
    """Every public name of a surface, those whose declaration did not parse too (by name)."""
    names = {
        n: replace(i.export, name=n) for n, i in surface.names.items() if not i.export.internal
    }
    for name, path in sorted(surface.damaged.items()):
        names.setdefault(name, JsExport(name, "value", 0, f"{name} (not read in {path})"))
    return names


def _lost_to_node10(
    old: PackageSurface,
    new: PackageSurface,
    before: dict[str, JsExport],
    found: list[BreakingChange],
) -> list[BreakingChange]:
    """Every main-entry name, when the package's types stop resolving for ``moduleResolution:
    node`` (node10, which ignores ``exports``): its consumers cannot import any of them."""
    if old.node10_entry is None or new.node10_entry is not None or new.unreadable:
        return []
    removed = {c.symbol for c in found if c.kind is BreakingKind.removed_export}
    report = _Report(old.entries.get(".", ""), "typescript")
    for name, export in sorted(before.items()):
        if ":" in name or "." in name or name in removed:
            continue
        detail = (
            f"`{name}` is no longer found with `moduleResolution: node` (node10): the package's "
            "types are named only in package.json `exports`, which node10 ignores"
        )
        report.lost(export, detail)
    return report.changes


def _manifest_kept(root: str, head: SurfaceReader) -> bool:
    """The package is still there at head (its ``package.json`` too): not moved or deleted."""
    return (f"{root}/package.json" if root else "package.json") in head.paths


def _entry_lost(old: PackageSurface) -> list[BreakingChange]:
    """Every main-entry name, when the package's ``package.json`` at head names no entry point
    that exists (``exports``, ``types``, ``main`` and ``index`` all resolve to no shipped file):
    no consumer can import any of them, whatever its module resolution."""
    changes: list[BreakingChange] = []
    for name, item in sorted(old.names.items()):
        if ":" in name or "." in name or item.export.internal:
            continue
        language: Language = "typescript" if is_typescript_file(item.file) else "javascript"
        report = _Report(item.file, language)
        detail = (
            f"`{name}` can no longer be imported: the package's entry points (package.json "
            "`exports`, `types`, `main`) name no file the new release ships"
        )
        report.lost(replace(item.export, name=name), detail)
        changes += [c.model_copy(update={"public_paths": [name]}) for c in report.changes]
    return changes


def _hidden_change(file: str, export: JsExport) -> BreakingChange:
    """A marker for a hidden declaration judged changed (never reported itself)."""
    report = _Report(file, "typescript")
    report.changed(export, export, BreakingKind.changed_type, "hidden")
    return report.changes[0]


def _declared_in(paths: frozenset[str], base: SurfaceReader, head: SurfaceReader) -> frozenset[str]:
    """Every top-level name the changed JS/TS files declare, at base or at head."""
    wanted = sorted(p for p in paths if is_js_file(p))
    words: set[str] = set()
    for reader in (base, head):
        reader.load(wanted)
        for path in wanted:
            module = reader.module(path)
            words.update(module.declared if module is not None else ())
    return frozenset(words)


def _short(name: str) -> str:
    """``sub:Client.get`` -> ``Client``: the declared name a surface key starts with."""
    return name.split(":", 1)[-1].split(".", 1)[0]


def _top(name: str) -> str:
    """``sub:Client.get`` -> ``sub:Client``: the exported name a surface key belongs to."""
    label, _, rest = name.rpartition(":")
    top = rest.split(".", 1)[0]
    return f"{label}:{top}" if label else top


def _unreadable_parts(old: PackageSurface, new: PackageSurface) -> list[NotAnalysed]:
    notes = [
        NotAnalysed(path=path, reason="does not parse; names it exports were not compared")
        for path in sorted(set(old.unreadable) | set(new.unreadable))
    ]
    for name, path in sorted({**old.damaged, **new.damaged}.items()):
        notes.append(
            NotAnalysed(path=path, symbol=name, reason="declaration does not parse; not compared")
        )
    return notes


def _candidates(
    old: PackageSurface,
    before: dict[str, JsExport],
    after: dict[str, JsExport],
    touched: frozenset[str],
    changed_words: frozenset[str],
) -> list[str]:
    """Exported names whose declaration, or a name it mentions, may have changed.

    A name is a candidate when its text differs, its declaring file changed,
    or it mentions a name declared in a changed file or another candidate.
    """
    texts: dict[str, set[str]] = {}
    marked: set[str] = set()
    for name, export in before.items():
        top = _top(name)
        texts.setdefault(top, set()).update(_words(export))
        if after.get(name) != export or old.names[name].file in touched:
            marked.add(top)
    common = {top for top in texts if top in after}
    marked = (marked | {top for top in common if texts[top] & changed_words}) & common
    while True:  # a name mentioning a changed export may break through it
        shorts = {top.split(":", 1)[-1] for top in marked}
        more = {top for top in common - marked if texts[top] & shorts}
        if not more:
            return sorted(marked)
        marked |= more


def _words(export: JsExport) -> set[str]:
    parts = [export.declaration, export.type_text or "", export.returns or ""]
    parts += [text for _, text in export.members or ()]
    parts += [p.type or "" for p in export.params or ()]
    return set(_WORD.findall(" ".join(parts)))


@dataclass
class _CompilerJudge:
    """Asks the TypeScript compiler about candidate names and lets its verdicts decide."""

    compiler: TypeJudge
    base: SourceTree
    head: SourceTree
    answered: bool = False
    failure: str | None = None

    def decide(
        self,
        old: PackageSurface,
        new: PackageSurface,
        candidates: list[str],
        changes: list[BreakingChange],
        before: dict[str, JsExport],
        after: dict[str, JsExport],
    ) -> tuple[list[BreakingChange], list[NotAnalysed], set[str]]:
        """Findings after the compiler's verdicts, notes, and the names it judged.

        Names tree-sitter could not read (declarations that do not parse) are
        judged too; they get a placeholder declaration in the report.
        """
        request = self._request(old, new, candidates)
        if request is None:
            return changes, [], set()
        try:
            verdicts = self.compiler.check(request)
        except CompilerUnavailable as err:
            self.failure = str(err)
            note = NotAnalysed(path=old.entries.get(".", old.root or "."), reason=str(err))
            return changes, [note], set()
        self.answered = True
        # A name the compiler judged keeps tree-sitter's findings only when it is broken.
        kept = [c for c in changes if verdicts.get(_top(c.symbol), "") is not None]
        explained = {_top(c.symbol) for c in kept}
        for name, reason in sorted(verdicts.items()):
            if reason is None or name in explained:
                continue
            file = old.damaged.get(name, old.entries.get(".", ""))
            export = before.get(name) or JsExport(name, "type", 0, f"{name} (not read)")
            kind = (
                BreakingKind.changed_signature
                if export.is_callable or export.kind == "class"
                else BreakingKind.changed_type
            )
            report = _Report(file, "typescript")
            report.changed(export, after.get(name, export), kind, _COMPILER_SAYS + reason)
            kept += report.changes
        return kept, [], set(verdicts)

    def _request(
        self, old: PackageSurface, new: PackageSurface, candidates: list[str]
    ) -> CheckRequest | None:
        base_dir, head_dir = self.base.root, self.head.root
        if base_dir is None or head_dir is None or not candidates:
            return None
        entries: dict[str, tuple[Path, Path]] = {}
        for subpath, old_entry in old.entries.items():
            new_entry = new.entries.get(subpath)
            if new_entry is not None and _typed(old_entry) and _typed(new_entry):
                label = "" if subpath == "." else subpath.removeprefix("./")
                entries[label] = (base_dir / old_entry, head_dir / new_entry)
        prefix = f"{old.root}/" if old.root else ""
        names = [n for n in candidates if (n.rpartition(":")[0]) in entries]
        if not names:
            return None
        return CheckRequest(base_dir / prefix, head_dir / prefix, entries, names)


def _typed(entry: str) -> bool:
    """An entry file the compiler can import: TypeScript, or a declaration file of any module
    format (``index.d.mts`` of an ``exports`` map's ``import`` condition, ``.d.cts``)."""
    return is_typescript_file(entry) or is_declaration_file(entry)


def _compare_files(
    changed: list[ChangedFile], base: SurfaceReader, head: SurfaceReader
) -> list[BreakingChange]:
    """Breaking changes to the exports of files that belong to no package we can read."""
    changes: list[BreakingChange] = []
    for item in changed:
        old_path = item.old_path or item.path
        old = base.module(old_path)
        if old is None or not old.complete:
            continue
        new_exports: dict[str, JsExport] = {}
        if item.status is not FileStatus.deleted and is_js_file(item.path):
            new = head.module(item.path)
            if new is None or not new.complete:  # head does not parse: say nothing, not guess
                continue
            new_exports = new.exports
        moved_to = (
            item.path if old_path != item.path and item.status is not FileStatus.deleted else None
        )
        changes += compare_exports(old_path, old.exports, new_exports, moved_to)
    return changes


def compare_exports(
    file: str,
    old: dict[str, JsExport],
    new: dict[str, JsExport],
    moved_to: str | None = None,
    *,
    removals: bool = True,
) -> list[BreakingChange]:
    """Breaking changes between two export surfaces of ``file``.

    ``moved_to`` is the file's head path after a git rename: every export's
    import path changed, so each one still exported there is a rename.
    Without ``removals`` (the new surface could not be read completely) names
    missing at head are not claimed as removed.
    """
    language: Language = "typescript" if is_typescript_file(file) else "javascript"
    report = _Report(file, language)
    old = {name: item for name, item in old.items() if item.kind != "star"}
    new = {name: item for name, item in new.items() if item.kind != "star"}
    removed = [name for name in old if name not in new] if removals else []
    gone_parents = set(removed)
    removed = [name for name in removed if _parent(name) not in gone_parents]
    if moved_to is not None:
        for name in list(old):
            if name in new and not _parent(name):
                report.renamed(old[name], new[name], f"{moved_to}#{name}")
        _compare_common(report, old, new, skip_members=True)
    else:
        _compare_common(report, old, new, skip_members=False)
    added = [name for name in new if name not in old]
    for parent in sorted({_parent(name) for name in removed}):
        _resolve_removed(
            report,
            [old[n] for n in removed if _parent(n) == parent],
            [new[n] for n in added if _parent(n) == parent],
        )
    return report.changes


def _parent(name: str) -> str:
    """The class a member belongs to ('' for module-level exports), entry label kept."""
    top = _top(name)
    return top if top != name else ""


def _compare_common(
    report: _Report, old: dict[str, JsExport], new: dict[str, JsExport], *, skip_members: bool
) -> None:
    for name, before in old.items():
        after = new.get(name)
        if after is None or (skip_members and not _parent(name)):
            continue
        for kind, detail in _differences(before, after, _Scope(old), _Scope(new)):
            report.changed(before, after, kind, detail)


@dataclass(frozen=True)
class _Scope:
    """One side's exports, to find the interfaces another interface extends."""

    exports: dict[str, JsExport]

    def members(
        self, export: JsExport, seen: frozenset[str] = frozenset()
    ) -> dict[str, str] | None:
        """Own and inherited members; None when a base type is not one we can read."""
        found = dict(export.members or ())
        for base in export.bases:
            target = self._lookup(base.split("<", 1)[0].strip(), export.name)
            if target is None or target.name in seen or target.members is None:
                return None
            inherited = self.members(target, seen | {export.name})
            if inherited is None:
                return None
            for name, text in inherited.items():
                found.setdefault(name, text)
        return found

    def _lookup(self, base: str, owner: str) -> JsExport | None:
        """``HTMLAttributes`` named in ``React.DialogHTMLAttributes``: ``React.HTMLAttributes``."""
        prefix = owner
        while True:
            cut = max(prefix.rfind("."), prefix.rfind(":"))
            prefix = prefix[: cut + 1] if cut >= 0 else ""
            found = self.exports.get(prefix + base)
            if found is not None or not prefix:
                return found
            prefix = prefix[:-1]


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


Difference = tuple[BreakingKind, str]


def _differences(
    before: JsExport, after: JsExport, old: _Scope | None = None, new: _Scope | None = None
) -> list[Difference]:
    """What changed incompatibly in one export, judged from structure, as (kind, reason) pairs."""
    if before.kind != after.kind:
        if (before.kind in _TYPE_ONLY) == (after.kind in _TYPE_ONLY):
            # variable -> class, interface -> type: same role for consumers; members still compared
            return []
        return [(BreakingKind.changed_signature, f"changed from {before.kind} to {after.kind}")]
    if before.kind in _NO_SIGNATURE:
        return []
    found: list[Difference] = []
    if before.is_callable and after.is_callable:
        found += _callable_differences(before, after)
    if before.kind == "class":
        old_base, new_base = _extends(before.type_text), _extends(after.type_text)
        if old_base and old_base != new_base:
            detail = f"base class changed from {old_base} to {new_base or 'none'}"
            found.append((BreakingKind.changed_type, detail))
    elif before.members is not None and after.members is not None:
        found += _member_differences(before, after, old or _Scope({}), new or _Scope({}))
    elif before.kind in ("type", "variable", "property"):
        flow = Flow.both if before.kind == "type" else Flow.out_of
        if incompatible(before.type_text, after.type_text, flow):
            detail = f"type changed from {before.type_text} to {after.type_text}"
            found.append((BreakingKind.changed_type, detail))
    if before.kind == "property" and after.optional and not before.optional:
        found.append((BreakingKind.changed_type, "property became optional (may be undefined)"))
    return found


def _callable_differences(before: JsExport, after: JsExport) -> list[Difference]:
    old_sigs = before.signatures or (before.params or (),)
    new_sigs = after.signatures or (after.params or (),)
    if len(old_sigs) > 1 or len(new_sigs) > 1:
        return _overload_differences(old_sigs, new_sigs)
    old_params, new_params = old_sigs[0], new_sigs[0]
    found: list[Difference] = []
    takes_rest = any(p.rest for p in new_params)
    for index, old in enumerate(old_params):
        if index >= len(new_params):
            if not takes_rest and not old.rest:
                found.append(
                    (BreakingKind.changed_signature, f"parameter `{old.name}` was removed")
                )
            continue
        new = new_params[index]
        if old.optional and not new.optional and not new.rest:
            found.append(
                (BreakingKind.changed_signature, f"parameter `{new.name}` became required")
            )
        if incompatible(old.type, new.type, Flow.into):
            detail = f"type of parameter `{new.name}` changed from {old.type} to {new.type}"
            found.append((BreakingKind.changed_signature, detail))
    for new in new_params[len(old_params) :]:
        if not new.optional and not new.rest:
            found.append(
                (BreakingKind.changed_signature, f"required parameter `{new.name}` was added")
            )
    found += _local_type_differences(before, after)
    if incompatible(before.returns, after.returns, Flow.out_of) or _now_void(
        before.returns, after.returns
    ):
        detail = f"return type changed from {before.returns} to {after.returns}"
        found.append((BreakingKind.changed_type, detail))
    return found


def _now_void(old: str | None, new: str | None) -> bool:
    """A result callers used (any type but ``void``/``any``/``undefined``) is no more."""
    if old is None or new is None or new.strip() != "void":
        return False
    return not re.search(r"(?<![\w$])(?:void|any|unknown|undefined|never)(?![\w$])", old)


def _local_type_differences(before: JsExport, after: JsExport) -> list[Difference]:
    """Unexported parameter types (``type Props = {…}``) judged like exported interfaces."""
    new_locals = {local.name: local for local in after.local_types}
    found: list[Difference] = []
    for old in before.local_types:
        new = new_locals.get(old.name)
        if new is None:
            continue
        if old.members is not None and new.members is not None:
            notes = [note for _, note in _member_differences(old, new, _Scope({}), _Scope({}))]
        elif incompatible(old.type_text, new.type_text, Flow.into):
            notes = [f"{old.type_text} became {new.type_text}"]
        else:
            notes = []
        if notes:
            detail = f"parameter type `{old.name}` changed: " + "; ".join(notes)
            found.append((BreakingKind.changed_signature, detail))
    return found


def _arity(params: tuple[JsParam, ...]) -> tuple[int, float]:
    required = sum(1 for p in params if not p.optional and not p.rest)
    most = float("inf") if any(p.rest for p in params) else float(len(params))
    return required, most


def _overload_differences(
    old_sigs: Iterable[tuple[JsParam, ...]], new_sigs: Iterable[tuple[JsParam, ...]]
) -> list[Difference]:
    """Every argument count an old overload took must still be taken by some new overload."""
    news = [_arity(params) for params in new_sigs]
    finite = [most for _, most in news if most != float("inf")]
    for params in old_sigs:
        required, most = _arity(params)
        top = int(most) if most != float("inf") else max([required, *map(int, finite)]) + 1
        for count in range(required, top + 1):
            if not any(n_req <= count <= n_most for n_req, n_most in news):
                detail = f"no overload takes {count} arguments any more"
                return [(BreakingKind.changed_signature, detail)]
    return []


def _member_differences(
    before: JsExport, after: JsExport, old: _Scope, new: _Scope
) -> list[Difference]:
    """Members removed, added as required, made optional/required, or of another simple type.

    Members count with those the interface inherits; when a base cannot be
    read, what may have moved into it is not claimed. An optional member
    removed from an interface is no break: both versions stay assignable.
    """
    own_old, own_new = dict(before.members or ()), dict(after.members or ())
    all_old, all_new = old.members(before), new.members(after)
    notes: list[str] = []
    for name, text in own_old.items():
        now = own_new.get(name) or (all_new or {}).get(name)
        if now is None:
            gone = all_new is not None and not (
                before.kind != "enum" and _is_optional_member(name, text)
            )
            if gone:
                notes.append(f"member `{name}` was removed")
            continue
        if before.kind == "enum":
            if now != text:
                notes.append(f"member `{text}` became `{now}`")
            continue
        if _is_optional_member(name, text) != _is_optional_member(name, now):
            state = "optional" if _is_optional_member(name, now) else "required"
            notes.append(f"member `{name}` became {state}")
        elif incompatible(_member_type(text), _member_type(now), Flow.both):
            notes.append(f"member `{text}` became `{now}`")
    if before.kind != "enum" and all_old is not None:
        for name, text in own_new.items():
            if name not in all_old and _is_required_member(name, text):
                notes.append(f"required member `{text}` was added")
    notes += _signature_differences(before, after)
    return [(BreakingKind.changed_type, note) for note in notes]


def _signature_differences(before: JsExport, after: JsExport) -> list[str]:
    """Callable members (call signatures, methods, function-typed properties) by their parameters.

    Consumers both call and implement an interface: a parameter removed or a
    required one added breaks one of them; no overload taking as many
    arguments breaks callers. A parameter made required breaks implementers
    of a call signature or function property, whose parameters the compiler
    compares strictly (not a method's).
    """
    olds: dict[str, list[MemberSignature]] = {}
    news: dict[str, list[MemberSignature]] = {}
    for group, export in ((olds, before), (news, after)):
        for signature in export.member_signatures:
            group.setdefault(signature.name, []).append(signature)
    notes: list[str] = []
    for name, old_sigs in olds.items():
        new_sigs = news.get(name)
        if not new_sigs or old_sigs[0].strict != new_sigs[0].strict:
            continue
        shown = {"call_signature": "call signature", "construct_signature": "constructor"}
        label = shown.get(name, f"member `{name}`")
        if len(old_sigs) > 1 or len(new_sigs) > 1:
            lost = _overload_differences([s.params for s in old_sigs], [s.params for s in new_sigs])
            notes += [f"{label}: {detail}" for _, detail in lost]
            continue
        old_params, new_params = old_sigs[0].params, new_sigs[0].params
        if any(p.rest for p in old_params + new_params):
            continue
        if len(new_params) < len(old_params):
            notes.append(f"{label}: parameter `{old_params[len(new_params)].name}` was removed")
        for new in new_params[len(old_params) :]:
            if not new.optional:
                notes.append(f"{label}: required parameter `{new.name}` was added")
        for old, new in zip(old_params, new_params, strict=False):
            if old_sigs[0].strict and old.optional and not new.optional:
                notes.append(f"{label}: parameter `{new.name}` became required")
    return notes


def _member_type(text: str) -> str | None:
    head, colon, rest = text.partition(":")
    return rest.strip() if colon and "(" not in head else None


def _is_optional_member(name: str, text: str) -> bool:
    return text.startswith((f"{name}?", f"readonly {name}?"))


def _is_required_member(name: str, text: str) -> bool:
    return not _is_optional_member(name, text) and "(" not in text.split(":", 1)[0]


def _extends(heritage: str | None) -> str | None:
    """The base class's name, without type arguments (those are the compiler's to judge)."""
    match = re.search(r"extends\s+([\w$.]+)", heritage or "")
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
        what = "member" if _parent(export.name) else _KIND_WORDS.get(export.kind, export.kind)
        detail = f"exported {what} `{export.name}` was removed"
        self._put(export, None, BreakingKind.removed_export, detail)

    def lost(self, export: JsExport, detail: str) -> None:
        """A name that is gone for some consumers, with the reason."""
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
