"""The public surface of a JavaScript/TypeScript package: what its entry points export.

A consumer sees a package through ``package.json``: ``exports`` (with its
conditions), ``types``/``typings``, ``typesVersions``, ``module``/``main``,
or an ``index`` file. From each entry point we follow ``export *``,
``export { a as b } from``, ``import``-then-``export`` and ``export =``
through the package's own files, so the surface is keyed by the name a
consumer imports, not by the file that declares it: a declaration moved to
another file but still exported is no change at all.

When a package ships declaration files (``.d.ts``) only those are read;
otherwise its sources are. Never both: the same API twice would be compared
twice.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field, replace
from typing import Any

from prflow.analysis.js_exports import (
    JS_SURFACE_VERSION,
    JsExport,
    JsModule,
    decode_module,
    parse_js_module,
)
from prflow.analysis.parse_cache import MemoryParseCache, ParsedFiles, ParserSpec
from prflow.imports.build import is_skipped
from prflow.imports.js_imports import JsResolver
from prflow.imports.tsconfig import TsConfigIndex
from prflow.js_files import is_declaration_file, is_js_file
from prflow.source_tree import SourceTree

_CONDITIONS = ("types", "typings", "import", "module", "default", "require", "node", "browser")
_MAX_DEPTH = 30
_HIDDEN_DEPTH = 4
_TYPE_WORD = re.compile(r"(?<![\w$.])[A-Z][\w$]*")
_DECLARED = re.compile(r"\b(?:class|namespace|function|const|let|var)\s+([A-Za-z_$][\w$]*)")


@dataclass(frozen=True)
class SurfaceItem:
    """One exported name, where it is declared, and its shape."""

    file: str
    export: JsExport


@dataclass
class PackageSurface:
    root: str
    entries: dict[str, str]
    """Subpath (``.``, ``./sub``) to entry file."""
    names: dict[str, SurfaceItem] = field(default_factory=dict)
    """``name`` for the main entry, ``sub:name`` for the others."""
    unreadable: list[str] = field(default_factory=list)
    """Files the entry points reach that could not be read at all."""
    damaged: dict[str, str] = field(default_factory=dict)
    """Names declared in statements that did not parse, with their file."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Type aliases declared in the files read (exported or not), by name."""
    unique_symbols: set[str] = field(default_factory=set)
    """``unique symbol`` constants declared in the files read: each release's is its own type."""
    node10_entry: str | None = None
    """The main entry's declaration file as TypeScript's ``node10`` resolution finds it
    (``typesVersions``, ``types``/``typings``, ``main``, ``index``; never ``exports``): what
    consumers compiling with ``moduleResolution: node`` import. None when it finds none, or
    when the package ships no declaration files (its sources say nothing about that)."""
    hidden: dict[str, list[JsExport]] = field(default_factory=dict)
    """Declarations consumers use without naming them, by declared name (the declaration and
    its members): classes, interfaces and aliases the main entry's names use but the entry
    does not export, and the instance side of an ``export =`` class."""


def js_parser() -> ParserSpec:
    return ParserSpec("js", JS_SURFACE_VERSION, parse_js_module)


def package_roots(paths: list[str]) -> list[str]:
    """Directories holding a ``package.json`` (outside ``node_modules``), deepest first."""
    roots = [
        posixpath.dirname(p)
        for p in paths
        if posixpath.basename(p) == "package.json" and not is_skipped(p)
    ]
    return sorted(roots, key=lambda r: (-len(r), r))


def owning_root(path: str, roots: list[str]) -> str | None:
    for root in roots:
        if not root or path.startswith(f"{root}/"):
            return root
    return None


class SurfaceReader:
    """Reads package surfaces of one tree; parses go through the shared parse cache."""

    def __init__(self, tree: SourceTree, parsed: ParsedFiles | None = None) -> None:
        self.tree = tree
        self.paths = tree.paths()
        self.parsed = parsed if parsed is not None else ParsedFiles(js_parser(), MemoryParseCache())
        self._modules: dict[str, JsModule | None] = {}

    def module(self, path: str) -> JsModule | None:
        if path not in self._modules:
            self.load([path])
        return self._modules[path]

    def load(self, paths: list[str]) -> None:
        """Parse (or find in the cache) every file of ``paths`` in one batch."""
        wanted = [p for p in dict.fromkeys(paths) if p not in self._modules]
        found = self.parsed.get_many(self.tree, wanted)
        for path in wanted:
            data = found.get(path)
            self._modules[path] = decode_module(data) if data is not None else None

    def _prefetch(self, entries: list[str], resolver: JsResolver) -> None:
        """Load the files the entry points reach, one batch per level of re-exports."""
        frontier = sorted(set(entries))
        seen = set(frontier)
        while frontier:
            self.load(frontier)
            following: list[str] = []
            for path in frontier:
                module = self._modules.get(path)
                for export in module.exports.values() if module is not None else ():
                    target = resolver.resolve(path, export.source) if export.source else None
                    if target is not None and target not in seen:
                        seen.add(target)
                        following.append(target)
            frontier = following

    def surface(self, root: str) -> PackageSurface | None:
        """The package's surface, or None when it declares no entry point we can find."""
        prefix = f"{root}/" if root else ""
        files = [
            p
            for p in self.paths
            if p.startswith(prefix) and is_js_file(p) and "node_modules" not in p.split("/")
        ]
        declarations = [p for p in files if is_declaration_file(p)]
        chosen = frozenset(declarations or [p for p in files if not is_declaration_file(p)])
        resolver = JsResolver(files=chosen, configs=TsConfigIndex(self.tree, self.paths))
        manifest = _manifest(self.tree, f"{prefix}package.json")
        entries: dict[str, str] = {}
        for subpath, candidates in _entry_candidates(manifest).items():
            for candidate in candidates:
                found = resolver.resolve(f"{prefix}package.json", f"./{candidate.lstrip('./')}")
                if found is None and candidate.endswith((".js", ".mjs", ".cjs")):
                    found = resolver.resolve(f"{prefix}package.json", f"./{candidate[:-3]}")
                if found is not None:
                    entries[subpath] = found
                    break
        if not entries:
            return None
        surface = PackageSurface(root, entries)
        if declarations:
            surface.node10_entry = _node10_entry(manifest, resolver, f"{prefix}package.json")
        self._prefetch(list(entries.values()), resolver)
        for subpath, entry in sorted(entries.items()):
            label = "" if subpath == "." else f"{subpath.removeprefix('./')}:"
            names = self._module_surface(entry, resolver, set(), surface)
            for name, item in _flatten_export_equals(names).items():
                surface.names[f"{label}{name}"] = item
            if not label:
                surface.hidden.update(_export_equals_class(names))
                self._hidden_types(resolver, surface)
        return surface

    def _module_surface(
        self, path: str, resolver: JsResolver, seen: set[str], surface: PackageSurface
    ) -> dict[str, SurfaceItem]:
        if path in seen or len(seen) > _MAX_DEPTH:
            return {}
        seen = seen | {path}
        module = self.module(path)
        if module is None:
            if path not in surface.unreadable:
                surface.unreadable.append(path)
            return {}
        for name in module.damaged:
            surface.damaged.setdefault(name, path)
        for name, text in module.aliases.items():
            surface.aliases.setdefault(name, text)
        surface.unique_symbols.update(module.unique_symbols)
        exports = module.exports
        names: dict[str, SurfaceItem] = {}
        stars: list[JsExport] = []
        for name, export in exports.items():
            if export.kind == "star":
                stars.append(export)
            elif export.source is not None and export.imported is not None:
                names.update(self._follow(path, name, export, resolver, seen, surface))
            else:
                names[name] = SurfaceItem(path, export)
        for star in stars:
            target = resolver.resolve(path, star.source or "")
            if target is None:
                continue
            for name, item in self._module_surface(target, resolver, seen, surface).items():
                if name != "default" and name.split(".", 1)[0] not in names:
                    names.setdefault(name, item)
        return names

    def _hidden_types(self, resolver: JsResolver, surface: PackageSurface) -> None:
        """Declarations the main entry's names use without exporting them, by name.

        ``export const asyncScheduler: AsyncScheduler`` with ``AsyncScheduler``
        imported from a module the entry does not re-export: consumers use
        ``AsyncScheduler`` (and what it uses) without being able to name it.
        """
        exported = {_short_name(key) for key in surface.names}
        frontier: list[tuple[str, JsExport]] = [
            (item.file, item.export) for key, item in surface.names.items() if ":" not in key
        ]
        seen: set[str] = set(exported) | set(surface.hidden)
        read: dict[str, dict[str, SurfaceItem]] = {}
        for _ in range(_HIDDEN_DEPTH):
            following: list[tuple[str, JsExport]] = []
            for path, export in frontier:
                module = self.module(path)
                if module is None:
                    continue
                for word in sorted(_mentioned(export) - seen):
                    found = self._declaration(path, module, word, resolver, read, surface)
                    if found is None:
                        continue
                    seen.add(word)
                    where, items = found
                    surface.hidden[word] = items
                    following += [(where, item) for item in items]
            frontier = following
            if not frontier:
                break

    def _declaration(
        self,
        path: str,
        module: JsModule,
        word: str,
        resolver: JsResolver,
        read: dict[str, dict[str, SurfaceItem]],
        surface: PackageSurface,
    ) -> tuple[str, list[JsExport]] | None:
        """``word`` as ``path`` sees it: declared there, or imported from a module of ours."""
        where, wanted = path, word
        if word not in module.exports:
            imported = module.imports.get(word)
            if imported is None or imported[1] in ("*", "default"):
                return None
            target = resolver.resolve(path, imported[0])
            if target is None:
                return None
            where, wanted = target, imported[1]
        if where not in read:
            scratch = PackageSurface("", {})  # what it cannot read is not the surface's
            read[where] = self._module_surface(where, resolver, set(), scratch)
            for name, text in scratch.aliases.items():
                surface.aliases.setdefault(name, text)
            surface.unique_symbols |= scratch.unique_symbols
        names = read[where]
        items = [
            replace(item.export, name=word + key[len(wanted) :])
            for key, item in sorted(names.items())
            if key == wanted or (key.startswith(f"{wanted}.") and key.count(".") == 1)
        ]
        files = {item.file for key, item in names.items() if key == wanted}
        if not items or any(i.kind in ("reexport", "star") for i in items):
            return None
        return (min(files) if files else where), items

    def _follow(
        self,
        path: str,
        name: str,
        export: JsExport,
        resolver: JsResolver,
        seen: set[str],
        surface: PackageSurface,
    ) -> dict[str, SurfaceItem]:
        """``export { a as name } from './x'``: ``a`` of ``./x`` (and its members) as ``name``."""
        target = resolver.resolve(path, export.source or "")
        if target is None:  # another package: the re-export itself is the surface
            return {name: SurfaceItem(path, export)}
        inner = self._module_surface(target, resolver, seen, surface)
        if export.imported == "*":
            found = {f"{name}.{k}": v for k, v in inner.items()}
            found[name] = SurfaceItem(path, replace(export, kind="namespace"))
            return found
        wanted = export.imported or name
        found = {}
        for key, item in inner.items():
            if key == wanted or key.startswith(f"{wanted}."):
                renamed = name + key[len(wanted) :]
                shaped = replace(item.export, name=renamed)
                if key == wanted and export.export_equals:  # ``export = imported``
                    shaped = replace(shaped, export_equals=True)
                found[renamed] = SurfaceItem(item.file, shaped)
        return found or {name: SurfaceItem(path, export)}


def _flatten_export_equals(names: dict[str, SurfaceItem]) -> dict[str, SurfaceItem]:
    """``export = X``: consumers see X's namespace members and static members as module names.

    ``import ws = require("ws")`` or ``import * as ws`` reaches ``ws.Server`` when ``X`` is a
    namespace, or a class merged with one; an ES ``export default X`` does not. The export
    itself stays as ``default`` unless it is a bare namespace; instance members stay on it.
    """
    default = names.get("default")
    if default is None or not default.export.export_equals:
        return names
    keep_default = default.export.kind != "namespace"
    flattened = {
        k: v
        for k, v in names.items()
        if keep_default or (k != "default" and not k.startswith("default."))
    }
    is_class = default.export.kind == "class" or any(
        key.startswith("default.")
        and "." not in key.removeprefix("default.")
        and item.export.kind in ("method", "property")
        for key, item in names.items()
    )  # a class merged with a namespace is recorded as the namespace; its members tell
    if is_class:
        # The module is the constructor: ``require("x").prototype`` is a name of it too.
        prototype = JsExport("prototype", "property", default.export.line, "prototype", static=True)
        flattened.setdefault("prototype", SurfaceItem(default.file, prototype))
    for key, item in names.items():
        if not key.startswith("default."):
            continue
        short = key.removeprefix("default.")
        own = "." not in short  # a member of X itself, not of a class inside its namespace
        if own and item.export.kind in ("method", "property") and not item.export.static:
            continue  # an instance member: reached through an instance, not the module
        flattened.setdefault(short, SurfaceItem(item.file, replace(item.export, name=short)))
    return flattened


def _short_name(key: str) -> str:
    return key.split(":", 1)[-1].split(".", 1)[0]


def _mentioned(export: JsExport) -> set[str]:
    """Capitalised names a declaration's text uses (types and classes, by convention)."""
    parts = [export.declaration, export.type_text or "", export.returns or ""]
    parts += [text for _, text in export.members or ()]
    parts += [p.type or "" for p in export.params or ()]
    return {w for w in _TYPE_WORD.findall(" ".join(parts)) if w != export.name.split(".")[0]}


def _export_equals_class(names: dict[str, SurfaceItem]) -> dict[str, list[JsExport]]:
    """``export = C`` of a class: C and its own members, under C's declared name."""
    default = names.get("default")
    if default is None or not default.export.export_equals:
        return {}
    declared = _DECLARED.search(default.export.declaration)
    if declared is None:
        return {}
    own = [
        replace(item.export, name=declared.group(1) + key.removeprefix("default"))
        for key, item in sorted(names.items())
        if (key == "default" or (key.startswith("default.") and key.count(".") == 1))
        and item.export.kind in ("class", "method", "property")
    ]
    return {declared.group(1): own} if own else {}


def _manifest(tree: SourceTree, path: str) -> dict[str, Any]:
    text = tree.read_text(path)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _entry_candidates(manifest: dict[str, Any]) -> dict[str, list[str]]:
    """Subpath to candidate files, from ``exports`` or the older fields."""
    found: dict[str, list[str]] = {}
    exports = manifest.get("exports")
    if isinstance(exports, str):
        exports = {".": exports}
    if isinstance(exports, dict):
        if not any(str(k).startswith(".") for k in exports):
            exports = {".": exports}
        for subpath, value in exports.items():
            if "*" in subpath or subpath.endswith(".json") or not subpath.startswith("."):
                continue
            picked = _pick_condition(value)
            if picked:
                found[subpath] = picked
    main: list[str] = []
    for key in ("types", "typings", "module", "main"):
        value = manifest.get(key)
        if isinstance(value, str):
            main.append(value)
    main += ["index", "src/index", "lib/index"]
    versions = manifest.get("typesVersions")
    if isinstance(versions, dict) and versions:
        mapping = next(iter(versions.values()))
        pattern = mapping.get("*") if isinstance(mapping, dict) else None
        if isinstance(pattern, list) and pattern and isinstance(pattern[0], str):
            main = [pattern[0].replace("*", m.lstrip("./")) for m in main] + main
    found.setdefault(".", [])
    found["."] = found["."] + main
    return found


def _node10_entry(manifest: dict[str, Any], resolver: JsResolver, anchor: str) -> str | None:
    """The declaration file ``moduleResolution: node`` (node10) finds for the package itself.

    ``typesVersions`` applies when a key's range admits TypeScript 5 (``*``, ``>=4.1``; not
    ``<4.7``); then ``types``/``typings``, ``main`` with its ``.d.ts`` beside it, ``index``.
    """
    wanted = [manifest.get(key) for key in ("types", "typings", "main")]
    candidates = [c for c in wanted if isinstance(c, str) and c.strip("./")] + ["index"]
    versions = manifest.get("typesVersions")
    mapping = None
    if isinstance(versions, dict):
        mapping = next(
            (v for k, v in versions.items() if not str(k).lstrip().startswith("<")), None
        )
    pattern = mapping.get("*") if isinstance(mapping, dict) else None
    if isinstance(pattern, list) and pattern and isinstance(pattern[0], str):
        candidates = [pattern[0].replace("*", c.lstrip("./")) for c in candidates] + candidates
    for candidate in candidates:
        stem = candidate[:-3] if candidate.endswith((".js", ".ts")) else candidate
        for specifier in (candidate, stem):
            found = resolver.resolve(anchor, f"./{specifier.lstrip('./')}")
            if found is not None and is_declaration_file(found):
                return found
    return None


def _pick_condition(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for item in value for v in _pick_condition(item)]
    if isinstance(value, dict):
        picked: list[str] = []
        for condition in _CONDITIONS:
            if condition in value:
                picked += _pick_condition(value[condition])
        return picked
    return []
