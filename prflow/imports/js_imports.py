"""JavaScript / TypeScript imports, read with tree-sitter and resolved to files.

Covers ES modules (``import``, ``import type``, re-exports, side-effect
imports), CommonJS ``require``, dynamic ``import()`` and TypeScript's
``import x = require()``. Specifiers resolve like TypeScript's bundler/node
resolution: relative paths, extension and ``index`` probing, ``.js`` written
for a ``.ts`` source, then tsconfig ``paths`` and ``baseUrl``. Bare package
names that match nothing in the tree are dropped.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from prflow.imports.graph import ImportEdge
from prflow.imports.tsconfig import TsConfigIndex

# TypeScript's probing order for extensionless specifiers.
_PROBE_SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs")
# A `.js`-family specifier may name a TypeScript source (ESM output convention); a `.ts`
# one (`allowImportingTsExtensions`, kept as written in emitted declarations) its `.d.ts`.
_TS_FOR_JS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx",),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
    ".ts": (".d.ts",),
    ".tsx": (".d.ts",),
    ".mts": (".d.mts",),
    ".cts": (".d.cts",),
}

_QUERY = """
(import_statement) @import
(export_statement source: (_)) @export
(call_expression function: [(identifier) (import)] @callee arguments: (arguments . (string) @arg))
"""


@dataclass(frozen=True)
class _Grammar:
    parser: tree_sitter.Parser
    query: tree_sitter.Query


@cache
def _grammar(kind: str) -> _Grammar:
    if kind == "typescript":
        language = tree_sitter.Language(tree_sitter_typescript.language_typescript())
    elif kind == "tsx":
        language = tree_sitter.Language(tree_sitter_typescript.language_tsx())
    else:
        language = tree_sitter.Language(tree_sitter_javascript.language())
    return _Grammar(parser=tree_sitter.Parser(language), query=tree_sitter.Query(language, _QUERY))


def _grammar_for(path: str) -> _Grammar:
    if path.endswith(".tsx"):
        return _grammar("tsx")
    if path.endswith((".ts", ".mts", ".cts")):
        return _grammar("typescript")
    return _grammar("javascript")


@dataclass(frozen=True)
class RawImport:
    """An import as written: the specifier and what it brings in."""

    specifier: str
    names: tuple[str, ...] | None
    reexport: bool
    local_names: tuple[str, ...] = ()


def read_js_imports(path: str, text: str) -> list[RawImport]:
    """Every import of the file, unresolved, in source order."""
    grammar = _grammar_for(path)
    source = text.encode("utf-8", errors="replace")
    root = grammar.parser.parse(source).root_node
    found: list[RawImport] = []
    local_exports: set[str] = set()
    for _, captures in tree_sitter.QueryCursor(grammar.query).matches(root):
        if "import" in captures:
            raw = _from_import_statement(captures["import"][0])
        elif "export" in captures:
            raw = _from_export_statement(captures["export"][0])
        else:
            raw = _from_call(captures["callee"][0], captures["arg"][0])
        if raw is not None:
            found.append(raw)
    for node in root.children:
        if node.type == "export_statement" and node.child_by_field_name("source") is None:
            local_exports.update(_local_export_names(node))
    if not local_exports:
        return found
    # `import {a} from "./x"; export {a}` re-exports just like `export {a} from "./x"`.
    return [
        RawImport(raw.specifier, raw.names, True, raw.local_names)
        if set(raw.local_names) & local_exports
        else raw
        for raw in found
    ]


def _text(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def _string_value(node: tree_sitter.Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return "".join(_text(child) for child in node.named_children if child.type == "string_fragment")


def _from_import_statement(node: tree_sitter.Node) -> RawImport | None:
    specifier = _string_value(node.child_by_field_name("source"))
    clause = next((child for child in node.named_children if child.type == "import_clause"), None)
    require = next(
        (child for child in node.named_children if child.type == "import_require_clause"), None
    )
    if require is not None:
        specifier = _string_value(require.child_by_field_name("source"))
        return None if specifier is None else RawImport(specifier, None, False)
    if specifier is None:
        return None
    if clause is None:
        return RawImport(specifier, None, False)
    names: list[str] = []
    local: list[str] = []
    whole = False
    for part in clause.named_children:
        if part.type == "identifier":
            names.append("default")
            local.append(_text(part))
        elif part.type == "namespace_import":
            whole = True
            local.extend(_text(child) for child in part.named_children)
        elif part.type == "named_imports":
            for spec in part.named_children:
                if spec.type != "import_specifier":
                    continue
                name = _text(spec.child_by_field_name("name"))
                alias = spec.child_by_field_name("alias")
                names.append(name)
                local.append(_text(alias) if alias is not None else name)
    return RawImport(specifier, None if whole else tuple(names), False, tuple(local))


def _from_export_statement(node: tree_sitter.Node) -> RawImport | None:
    specifier = _string_value(node.child_by_field_name("source"))
    if specifier is None:
        return None
    clause = next((child for child in node.named_children if child.type == "export_clause"), None)
    if clause is None:
        # `export * from` and `export * as ns from`: everything passes through.
        return RawImport(specifier, None, True)
    names = tuple(
        _text(spec.child_by_field_name("name"))
        for spec in clause.named_children
        if spec.type == "export_specifier"
    )
    return RawImport(specifier, names, True)


def _from_call(callee: tree_sitter.Node, argument: tree_sitter.Node) -> RawImport | None:
    if callee.type == "identifier" and _text(callee) != "require":
        return None
    specifier = _string_value(argument)
    return None if specifier is None else RawImport(specifier, None, False)


def _local_export_names(node: tree_sitter.Node) -> set[str]:
    """Local names listed in ``export {a, b as c}`` without a ``from`` clause."""
    names: set[str] = set()
    for clause in node.named_children:
        if clause.type != "export_clause":
            continue
        for spec in clause.named_children:
            if spec.type == "export_specifier":
                names.add(_text(spec.child_by_field_name("name")))
    return names


class JsResolver:
    """Turns specifiers into files of the tree, honouring tsconfig aliases."""

    def __init__(self, files: frozenset[str], configs: TsConfigIndex) -> None:
        self._files = files
        self._configs = configs

    def resolve(self, importer: str, specifier: str) -> str | None:
        if specifier.startswith((".", "/")):
            base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
            if base.startswith(".."):
                return None
            return self._probe(base.lstrip("/"))
        settings = self._configs.for_file(importer)
        if settings is None:
            return None
        for candidate in settings.candidates(specifier):
            found = self._probe(candidate)
            if found is not None:
                return found
        return None

    def _probe(self, base: str) -> str | None:
        """The file a specifier path means: as written, TS-for-JS, with suffixes, index."""
        if base in self._files:
            return base
        stem, suffix = posixpath.splitext(base)
        for replacement in _TS_FOR_JS.get(suffix, ()):
            if stem + replacement in self._files:
                return stem + replacement
        for probe in _PROBE_SUFFIXES:
            if base + probe in self._files:
                return base + probe
        index = posixpath.join(base, "index") if base else "index"
        for probe in _PROBE_SUFFIXES:
            if index + probe in self._files:
                return index + probe
        return None


def js_import_edges(importer: str, text: str, resolver: JsResolver) -> list[ImportEdge]:
    """Resolved edges from ``importer``, one per target and kind of import."""
    whole: set[tuple[str, bool]] = set()
    named: dict[tuple[str, bool], list[str]] = {}
    for raw in read_js_imports(importer, text):
        target = resolver.resolve(importer, raw.specifier)
        if target is None or target == importer:
            continue
        if raw.names is None:
            whole.add((target, raw.reexport))
            continue
        names = named.setdefault((target, raw.reexport), [])
        names.extend(name for name in raw.names if name not in names)
    edges = [
        ImportEdge(importer=importer, target=target, reexport=reexport)
        for target, reexport in whole
    ]
    edges.extend(
        ImportEdge(importer=importer, target=target, names=names, reexport=reexport)
        for (target, reexport), names in named.items()
    )
    return sorted(edges, key=lambda edge: (edge.target, edge.names is not None, edge.reexport))
