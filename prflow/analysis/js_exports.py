"""The export surface of one JavaScript/TypeScript file, read with tree-sitter.

Covers ES modules (``export`` declarations, ``export default``, export
clauses, re-exports, ``export *``), TypeScript's ``export =`` and ambient
``declare`` forms (so ``.d.ts`` files count), and CommonJS
(``module.exports = ...``, ``exports.name = ...``). Classes contribute their
public members as ``Class.member``. ``module.exports = value`` and
``export = value`` are recorded under the name ``default``, which is how ES
importers see them.

Each export carries what a comparison needs: parameters, return type, the
type text of variables/aliases, the members of interfaces and enums, and a
normalized body for rename pairing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cache

import msgspec
import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from prflow.js_files import TS_SUFFIXES, TSX_SUFFIXES

_FUNCTION_NODES = {
    "function_declaration",
    "generator_function_declaration",
    "function_signature",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
}
_CLASS_NODES = {"class_declaration", "abstract_class_declaration", "class"}
_METHOD_NODES = {"method_definition", "method_signature", "abstract_method_signature"}
_TYPE_KINDS = ("interface", "type")
_TYPE_DECLARATIONS = {"interface_declaration", "type_alias_declaration"}
_DECLARED_NAME = re.compile(
    r"\b(?:interface|type|class|function|enum|namespace|module|const|let|var)\s+([A-Za-z_$][\w$]*)"
)
# A member documented as internal is not API: a JSDoc ``@internal`` tag (what TypeScript's own
# ``stripInternal`` removes) or a doc comment saying "internal use" / "internal implementation".
INTERNAL_DOC = re.compile(r"@internal\b|\binternal (?:use|implementation)", re.IGNORECASE)
JS_SURFACE_VERSION = "js-surface-11"
"""Bump when the extracted shape changes, so cached parse results are read again."""
_TYPE_STAR = re.compile(r"\bexport\s+type\s+\*")
# ``import("./x").Name<T>`` in a type: the grammar cannot read type arguments after an import
# type, so the qualifier is blanked (same length) and the type reads as ``Name<T>``.
_IMPORT_TYPE_QUALIFIER = re.compile(r"(?<![\w$.])import\(\s*(['\"])[^'\"\n]*\1\s*\)\s*\.")
# TypeScript 4.7's variance annotations (``type R<in out K, out A>``) are newer than the
# grammar: the whole declaration failed to parse. They are blanked (same length); the compiler
# still judges variance where it is asked.
_VARIANCE = re.compile(
    r"(?<=[<,])(\s*)((?:in\s+out|in|out)\s+)(?=[A-Za-z_$][\w$]*\s*(?:extends\b|=(?!>)|,|>))"
)


@dataclass(frozen=True)
class JsParam:
    name: str
    type: str | None
    optional: bool
    rest: bool

    def render(self) -> str:
        prefix = "..." if self.rest else ""
        mark = "?" if self.optional and not self.rest else ""
        annotation = f": {self.type}" if self.type else ""
        return f"{prefix}{self.name}{mark}{annotation}"


@dataclass(frozen=True)
class MemberSignature:
    """One signature of an interface member that takes arguments.

    ``name`` is the member's (``call_signature``/``construct_signature`` for
    the interface's own). ``strict``: a call signature or a property of
    function type, whose parameters the compiler compares strictly (a method's
    are compared both ways).
    """

    name: str
    params: tuple[JsParam, ...]
    strict: bool


@dataclass(frozen=True)
class JsExport:
    """One name a module exports, with the shape importers depend on."""

    name: str
    kind: str
    line: int
    declaration: str
    params: tuple[JsParam, ...] | None = None
    returns: str | None = None
    type_text: str | None = None
    members: tuple[tuple[str, str], ...] | None = None
    body: str = ""
    overloads: int = 1
    signatures: tuple[tuple[JsParam, ...], ...] = ()
    """Every overload's parameters (one entry without overloads)."""
    optional: bool = False
    local_types: tuple[JsExport, ...] = field(default=())
    """Unexported interfaces and types its parameters mention (React props, mostly)."""
    source: str | None = None
    """For re-exports: the module specifier the name comes from."""
    imported: str | None = None
    """For re-exports: the name in ``source`` (``*`` for a namespace re-export)."""
    bases: tuple[str, ...] = ()
    """For interfaces: the types it extends, as written (members may come from them)."""
    internal: bool = False
    """A class member documented as internal: not API in the old release, present in the new."""
    static: bool = False
    """A class member declared ``static`` (on the constructor, not on instances)."""
    export_equals: bool = False
    """Exported by ``export =`` / ``module.exports =``: importers see its members as the module."""
    member_signatures: tuple[MemberSignature, ...] = ()
    """Interfaces and object types: the parameters of each callable member, overloads apart."""

    @property
    def parent(self) -> str:
        """The class a member belongs to ('' for module-level exports)."""
        match = re.fullmatch(r"([\w$]+)\.[\w$]+", self.name)
        return match.group(1) if match else ""

    @property
    def is_callable(self) -> bool:
        return self.params is not None


@cache
def _parser_for(suffix: str) -> Parser:
    if suffix in TSX_SUFFIXES:
        language = Language(tree_sitter_typescript.language_tsx())
    elif suffix in TS_SUFFIXES:
        language = Language(tree_sitter_typescript.language_typescript())
    else:
        language = Language(tree_sitter_javascript.language())
    return Parser(language)


@dataclass(frozen=True)
class JsModule:
    """What one file exports, and the names of declarations that did not parse.

    A declaration the grammar cannot read is left out and named in
    ``damaged``, so the rest of the file still counts and nobody reports the
    unread names as removed.
    """

    exports: dict[str, JsExport]
    damaged: tuple[str, ...] = ()
    declared: tuple[str, ...] = ()
    """Every top-level name the file declares, exported or not (what a change can touch)."""
    complete: bool = True
    """False when any part of the file did not parse."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Top-level type aliases (exported or not) to their type text, for reading member types."""
    unique_symbols: tuple[str, ...] = ()
    """Top-level ``const X: unique symbol`` names: a new release declares a new, unrelated X."""
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Local names bound by ``import``: (module specifier, imported name or ``*``/``default``)."""


_MODULE_ENCODER = msgspec.json.Encoder()
_MODULE_DECODER = msgspec.json.Decoder(JsModule)


def encode_module(module: JsModule) -> bytes:
    return _MODULE_ENCODER.encode(module)


def decode_module(data: bytes) -> JsModule:
    return _MODULE_DECODER.decode(data)


def parse_js_module(text: str, path: str) -> bytes:
    """The parse-cache form of :func:`read_module` (a module-level function workers can run)."""
    return encode_module(read_module(path, text))


def extract_exports(path: str, text: str) -> dict[str, JsExport] | None:
    """Exports of ``path`` by name; None when any part of the file does not parse.

    For a file compared on its own a half-read file would report its unread
    exports as removed, so it is not compared at all.
    """
    module = read_module(path, text)
    return module.exports if module.complete else None


def read_module(path: str, text: str) -> JsModule:
    """Exports of ``path``, reading every top-level statement that parses."""
    suffix = "." + path.rsplit(".", 1)[-1]
    # TypeScript 5's ``export type * from`` is newer than the grammar; for a surface it is
    # ``export *`` (same length, so lines and columns stay put).
    text = _TYPE_STAR.sub(lambda m: "export" + " " * (len(m.group(0)) - 7) + "*", text)
    if suffix in TS_SUFFIXES + TSX_SUFFIXES:
        text = _IMPORT_TYPE_QUALIFIER.sub(lambda m: " " * len(m.group(0)), text)
        text = _VARIANCE.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    tree = _parser_for(suffix).parse(text.encode("utf-8"))
    extractor = _Extractor(tree.root_node, declaration_file=_is_declaration_file(path))
    exports = extractor.run()
    return JsModule(
        exports,
        tuple(extractor.damaged),
        tuple(sorted(extractor.locals)),
        complete=not tree.root_node.has_error,
        aliases={
            name: item.type_text
            for name, items in extractor.locals.items()
            for item in items
            if item.kind == "type" and item.type_text and item.members is None
        },
        imports=dict(extractor.imports),
        unique_symbols=tuple(
            sorted(
                name
                for name, items in extractor.locals.items()
                if any(i.kind == "variable" and i.type_text == "unique symbol" for i in items)
            )
        ),
    )


def _is_declaration_file(path: str) -> bool:
    return path.endswith((".d.ts", ".d.mts", ".d.cts")) or ".d." in path.rsplit("/", 1)[-1]


def _is_export_declaration(node: Node) -> bool:
    """``export { … }``, ``export * from``, ``export =`` or ``export default <value>``."""
    return node.type == "export_statement" and node.child_by_field_name("declaration") is None


def normalize(text: str) -> str:
    """Whitespace-insensitive type/declaration text, trailing separators dropped."""
    collapsed = re.sub(r"\s+", " ", text).strip()
    collapsed = re.sub(r"\s*([;,])\s*(?=[}\)\]>])", " ", collapsed)
    collapsed = re.sub(r"([{(\[<])\s+", r"\1", collapsed)
    collapsed = re.sub(r"\s+([}\)\]>])", r"\1", collapsed)
    return collapsed.rstrip(";,").strip()


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _annotation(node: Node | None) -> str | None:
    """The type inside a ``: T`` annotation node."""
    if node is None:
        return None
    return normalize(_text(node).lstrip()[1:]) if _text(node).lstrip().startswith(":") else None


def _body_key(node: Node, name: str) -> str:
    """Node text with its own name blanked, for rename pairing."""
    if not name:
        return normalize(_text(node))
    return normalize(re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])", "§", _text(node)))


class _Extractor:
    def __init__(self, root: Node, *, declaration_file: bool = False) -> None:
        self.root = root
        self.declaration_file = declaration_file
        self.locals: dict[str, list[JsExport]] = {}
        self.exports: dict[str, JsExport] = {}
        self.exported_locals: set[str] = set()
        self.imports: dict[str, tuple[str, str]] = {}
        self.damaged: list[str] = []
        self.text_lists: list[tuple[Node, list[tuple[str, str]], str | None]] = []

    def run(self) -> dict[str, JsExport]:
        statements = list(self._top_level())
        defaults: set[str] = set()  # ``export default function f``: f is exported as default only
        for node in statements:
            declaration = (
                node.child_by_field_name("declaration") if node.type == "export_statement" else node
            )
            if declaration is not None:
                is_default = node.type == "export_statement" and any(
                    child.type == "default" for child in node.children
                )
                for item in self._describe_declaration(declaration):
                    self.locals.setdefault(item.name.split(".", 1)[0], []).append(item)
                    if is_default:
                        defaults.add(item.name)
        for node in statements:
            if node.type == "import_statement":
                self._import_statement(node)
        for node in statements:
            if node.type == "export_statement":
                self._export_statement(node)
            elif node.type == "expression_statement":
                self._commonjs(node)
        for node, pairs, origin in self.text_lists:
            self._export_names(
                [(local, exported, _line(node)) for local, exported in pairs], origin
            )
        if self.declaration_file and not any(_is_export_declaration(n) for n in statements):
            # TypeScript: a declaration file without export lists or ``export =`` exports
            # every top-level declaration, ``export`` keyword or not.
            for items in self.locals.values():
                for item in items:
                    if item.name not in self.exports and item.name not in defaults:
                        self._add(item)
        return {name: self._with_local_types(item) for name, item in self.exports.items()}

    def _top_level(self) -> Iterator[Node]:
        """Statements that parse; the names declared by the others are recorded as damaged.

        An export list tree-sitter misreads (a specifier named ``type``, as in ``export {
        type, ark } from "./ark.js"``, which TypeScript reads as the name) is read from its text.
        """
        for node in self.root.named_children:
            listed = _export_list(node) if node.has_error else None
            if listed is not None:
                self.text_lists.append((node, *listed))
                continue
            if node.has_error or node.type == "ERROR":
                found = _DECLARED_NAME.findall(_text(node))
                self.damaged.extend(found if node.type == "ERROR" else found[:1])
                continue
            yield node

    # ES module forms

    def _import_statement(self, node: Node) -> None:
        """Local names bound by imports, so ``export { name }`` can be followed to its source."""
        source = node.child_by_field_name("source")
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        required = next((c for c in node.named_children if c.type == "import_require_clause"), None)
        if required is not None:
            # ``import x = require("./y")``: x is the module itself, as a namespace import is.
            parts = {c.type: c for c in required.named_children}
            if "identifier" in parts and "string" in parts:
                origin = _text(parts["string"]).strip("'\"")
                self.imports[_text(parts["identifier"])] = (origin, "*")
            return
        if source is None or clause is None:
            return
        origin = _text(source).strip("'\"")
        for child in clause.named_children:
            if child.type == "identifier":
                self.imports[_text(child)] = (origin, "default")
            elif child.type == "namespace_import":
                names = [c for c in child.named_children if c.type == "identifier"]
                if names:
                    self.imports[_text(names[-1])] = (origin, "*")
            elif child.type == "named_imports":
                for spec in child.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name = _text(spec.child_by_field_name("name"))
                    alias = _text(spec.child_by_field_name("alias")) or name
                    self.imports[alias] = (origin, name)

    def _export_statement(self, node: Node) -> None:
        declaration = node.child_by_field_name("declaration")
        is_default = any(child.type == "default" for child in node.children)
        source = node.child_by_field_name("source")
        if declaration is not None:
            for item in self._describe_declaration(declaration):
                self._add(self._renamed(item, "default") if is_default else item)
            return
        value = node.child_by_field_name("value")
        if is_default and value is not None:
            self._export_value("default", value)
            return
        if any(child.type == "=" for child in node.children):
            target = next((c for c in node.named_children if c.type != "comment"), None)
            if target is not None:
                self._export_value("default", target, export_equals=True)
            return
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if clause is not None:
            self._export_clause(clause, source)
            return
        namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
        origin = _text(source)
        plain = origin.strip("'\"")
        if namespace is not None:
            alias = _text(namespace.named_children[-1]) if namespace.named_children else "*"
            text = f"export * as {alias} from {origin}"
            self._add(replace(_reexport(alias, text, _line(node)), source=plain, imported="*"))
        elif source is not None:
            name = f"* from {origin}"
            item = _reexport(name, f"export * from {origin}", _line(node), kind="star")
            self._add(replace(item, source=plain, imported="*"))

    def _export_clause(self, clause: Node, source: Node | None) -> None:
        names = []
        for spec in clause.named_children:
            if spec.type != "export_specifier":
                continue
            local = _text(spec.child_by_field_name("name"))
            exported = _text(spec.child_by_field_name("alias")) or local
            names.append((local, exported, _line(spec)))
        self._export_names(names, _text(source) if source is not None else None)

    def _export_names(self, names: list[tuple[str, str, int]], source: str | None) -> None:
        """``export { local as exported }`` (``from source``, quoted as written) per name."""
        for local, exported, line in names:
            if source is not None:
                shown = local if exported == local else f"{local} as {exported}"
                text = f"export {{ {shown} }} from {source}"
                origin = source.strip("'\"")
                self._add(replace(_reexport(exported, text, line), source=origin, imported=local))
            elif local in self.locals:
                for item in self.locals[local]:
                    self._add(self._renamed(item, exported))
            elif local in self.imports:
                origin, name = self.imports[local]
                item = _reexport(exported, f"export {{ {local} }}", line)
                self._add(replace(item, source=origin, imported=name))
            else:
                self._add(_reexport(exported, f"export {{ {local} }}", line))

    def _export_value(self, name: str, value: Node, *, export_equals: bool = False) -> None:
        """``export default <expr>``, ``export = <expr>``, ``module.exports = <expr>``."""
        local_name = value.type in ("identifier", "shorthand_property_identifier")
        if local_name and _text(value) in self.locals:
            for item in self.locals[_text(value)]:
                self._add(replace(self._renamed(item, name), export_equals=export_equals))
            return
        if local_name and export_equals and _text(value) in self.imports:
            # ``import * as x from "./bundle"; export = x``: the module is what x binds,
            # followed like a re-export (echarts' entry names a bundled file this way).
            origin, imported = self.imports[_text(value)]
            item = _reexport(name, f"export = {_text(value)}", _line(value))
            self._add(replace(item, source=origin, imported=imported, export_equals=True))
            return
        for item in self._describe_value(name, value):
            self._add(replace(item, export_equals=export_equals))

    # CommonJS forms

    def _commonjs(self, statement: Node) -> None:
        assignment = statement.named_children[0] if statement.named_children else None
        if assignment is None or assignment.type != "assignment_expression":
            return
        target = _text(assignment.child_by_field_name("left"))
        value = assignment.child_by_field_name("right")
        if value is None:
            return
        if target == "module.exports":
            if value.type == "object":
                self._commonjs_object(value)
            else:
                self._export_value("default", value, export_equals=True)
            return
        match = re.fullmatch(r"(?:module\.)?exports\.([\w$]+)", target)
        if match:
            self._export_value(match.group(1), value)

    def _commonjs_object(self, value: Node) -> None:
        for prop in value.named_children:
            if prop.type == "shorthand_property_identifier":
                self._export_value(_text(prop), prop)
            elif prop.type == "pair":
                key = _text(prop.child_by_field_name("key")).strip("'\"")
                inner = prop.child_by_field_name("value")
                if inner is not None:
                    self._export_value(key, inner)
            elif prop.type in _METHOD_NODES:
                name = _text(prop.child_by_field_name("name"))
                self._add(self._callable(name, prop, "function"))

    def _add(self, item: JsExport) -> None:
        existing = self.exports.get(item.name)
        if existing is not None and item.kind == "namespace" and existing.kind in _TYPE_KINDS:
            # ``interface Seq`` merged with ``namespace Seq``: the namespace's members are
            # names of their own; the interface keeps its members to compare.
            self.exported_locals.add(item.name.split(".", 1)[0])
            return
        if existing is not None and existing.is_callable and item.is_callable:
            # Overloads: the surface is every signature together.
            item = replace(
                existing,
                declaration=f"{existing.declaration} | {item.declaration}",
                overloads=existing.overloads + 1,
                signatures=(*existing.signatures, *item.signatures),
            )
        self.exports[item.name] = item
        self.exported_locals.add(item.name.split(".", 1)[0])

    # describing declarations and values

    def _describe_declaration(self, node: Node) -> list[JsExport]:
        if node.type == "expression_statement" and node.named_children:
            statement = node.named_children[0]  # `namespace N { … }` parses as a statement
            if statement.type != "internal_module":
                return []
            return self._describe_declaration(statement)
        if node.type == "ambient_declaration":
            inner = [c for c in node.named_children if c.type != "comment"]
            return [item for child in inner for item in self._describe_declaration(child)]
        name_node = node.child_by_field_name("name")
        name = _text(name_node)
        if node.type in _FUNCTION_NODES and name:
            return [self._callable(name, node, "function")]
        if node.type in _CLASS_NODES and name:
            return self._class(name, node)
        if node.type in ("lexical_declaration", "variable_declaration"):
            return self._variables(node)
        if node.type == "interface_declaration":
            return [self._interface(name, node)]
        if node.type == "type_alias_declaration":
            return [self._type_alias(name, node)]
        if node.type == "enum_declaration":
            return [self._enum(name, node)]
        if node.type in ("internal_module", "module") and name:
            namespace = JsExport(
                name, "namespace", _line(node), f"namespace {name}", body=_body_key(node, name)
            )
            return [namespace, *self._namespace_members(name, node)]
        return []

    def _namespace_members(self, name: str, node: Node) -> list[JsExport]:
        """Declarations inside ``declare namespace N { ... }``, named ``N.member``."""
        body = node.child_by_field_name("body")
        members: list[JsExport] = []
        for child in body.named_children if body is not None else []:
            inner = (
                child.child_by_field_name("declaration")
                if child.type == "export_statement"
                else child
            )
            if inner is None:
                continue
            for item in self._describe_declaration(inner):
                members.append(replace(item, name=f"{name}.{item.name}"))
        return members

    def _describe_value(self, name: str, value: Node) -> list[JsExport]:
        if value.type in _FUNCTION_NODES:
            return [self._callable(name, value, "function")]
        if value.type in _CLASS_NODES:
            return self._class(name, value)
        declaration = f"{name} = {normalize(_text(value))[:80]}"
        return [JsExport(name, "value", _line(value), declaration, body=normalize(_text(value)))]

    def _variables(self, node: Node) -> list[JsExport]:
        keyword = _text(node.child_by_field_name("kind")) or _text(node.children[0])
        items: list[JsExport] = []
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            name_node = declarator.child_by_field_name("name")
            if name_node is None or name_node.type != "identifier":
                continue
            name = _text(name_node)
            value = declarator.child_by_field_name("value")
            annotation = _annotation(declarator.child_by_field_name("type"))
            if value is not None and value.type in _FUNCTION_NODES | _CLASS_NODES:
                described = self._describe_value(name, value)
                items.append(replace(described[0], type_text=annotation))
                items.extend(described[1:])
                continue
            shown = f"{keyword} {name}: {annotation}" if annotation else f"{keyword} {name}"
            items.append(
                JsExport(
                    name,
                    "variable",
                    _line(declarator),
                    shown,
                    type_text=annotation,
                    body=_body_key(declarator, name),
                )
            )
        return items

    def _callable(self, name: str, node: Node, kind: str) -> JsExport:
        params = _parameters(node.child_by_field_name("parameters"))
        single = node.child_by_field_name("parameter")
        if single is not None:  # `x => x`
            params = (JsParam(_text(single), None, optional=False, rest=False),)
        returns = _annotation(node.child_by_field_name("return_type"))
        shown_params = ", ".join(p.render() for p in params)
        shown = f"{name}({shown_params})" + (f": {returns}" if returns else "")
        prefix = "function " if kind == "function" else ""
        return JsExport(
            name,
            kind,
            _line(node),
            prefix + shown,
            params=params,
            returns=returns,
            body=_body_key(node, name.rsplit(".", 1)[-1]),
            signatures=(params,),
        )

    def _class(self, name: str, node: Node) -> list[JsExport]:
        heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
        extends = f" {normalize(_text(heritage))}" if heritage is not None else ""
        main = JsExport(
            name,
            "class",
            _line(node),
            f"class {name}{extends}",
            type_text=normalize(_text(heritage)) if heritage is not None else None,
            body=_body_key(node, name),
        )
        members = [main]
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            described = self._class_member(name, member)
            if described is not None:
                members.append(described)
        return members

    def _class_member(self, owner: str, member: Node) -> JsExport | None:
        described = self._describe_member(owner, member)
        if described is None:
            return None
        if any(child.type == "static" for child in member.children):
            described = replace(described, static=True)
        if is_documented_internal(member):
            return replace(described, internal=True)
        return described

    def _describe_member(self, owner: str, member: Node) -> JsExport | None:
        name_node = member.child_by_field_name("name")
        name = _text(name_node)
        if not name or name.startswith("#") or _is_hidden(member):
            return None
        qualified = f"{owner}.{name}"
        if member.type in _METHOD_NODES:
            accessor = next((c.type for c in member.children if c.type in ("get", "set")), None)
            if accessor is None:
                return self._callable(qualified, member, "method")
            returns = _annotation(member.child_by_field_name("return_type"))
            return JsExport(
                qualified,
                "property",
                _line(member),
                f"{accessor} {qualified}: {returns}",
                type_text=returns,
                body=_body_key(member, name),
            )
        if member.type in ("public_field_definition", "property_signature"):
            annotation = _annotation(member.child_by_field_name("type"))
            optional = "?" if any(c.type == "?" for c in member.children) else ""
            shown = f"{qualified}{optional}" + (f": {annotation}" if annotation else "")
            return JsExport(
                qualified,
                "property",
                _line(member),
                shown,
                type_text=annotation,
                optional=bool(optional),
                body=_body_key(member, name),
            )
        return None

    def _interface(self, name: str, node: Node) -> JsExport:
        body = node.child_by_field_name("body")
        members = _type_members(body)
        heritage = [
            normalize(_text(c)) for c in node.named_children if c.type == "extends_type_clause"
        ]
        shown = f"interface {name}" + (f" {heritage[0]}" if heritage else "")
        type_text = " ".join([*heritage, _render_members(members)])
        bases = tuple(
            normalize(_text(base))
            for clause in node.named_children
            if clause.type == "extends_type_clause"
            for base in clause.named_children
        )
        return JsExport(
            name,
            "interface",
            _line(node),
            f"{shown} {_render_members(members)}",
            type_text=type_text,
            members=members,
            body=_body_key(node, name),
            bases=bases,
            member_signatures=_member_signatures(body),
        )

    def _type_alias(self, name: str, node: Node) -> JsExport:
        value = node.child_by_field_name("value")
        text = normalize(_text(value))
        members = (
            _type_members(value) if value is not None and value.type == "object_type" else None
        )
        return JsExport(
            name,
            "type",
            _line(node),
            f"type {name} = {text}",
            type_text=text,
            members=members,
            body=_body_key(node, name),
            member_signatures=_member_signatures(value) if members is not None else (),
        )

    def _enum(self, name: str, node: Node) -> JsExport:
        body = node.child_by_field_name("body")
        members: list[tuple[str, str]] = []
        for child in body.named_children if body is not None else []:
            if child.type == "enum_assignment":
                member_name = _text(child.child_by_field_name("name"))
                members.append(
                    (member_name, f"{member_name} = {_text(child.child_by_field_name('value'))}")
                )
            elif child.type in ("property_identifier", "identifier", "string"):
                members.append((_text(child), _text(child)))
        shown = "{ " + ", ".join(text for _, text in members) + " }"
        return JsExport(
            name,
            "enum",
            _line(node),
            f"enum {name} {shown}",
            type_text=shown,
            members=tuple(members),
            body=_body_key(node, name),
        )

    @staticmethod
    def _renamed(item: JsExport, name: str) -> JsExport:
        """An export under another name (``export { a as b }``, default exports)."""
        _, _, rest = item.name.partition(".")
        new_name = f"{name}.{rest}" if rest else name
        return replace(item, name=new_name)

    def _with_local_types(self, item: JsExport) -> JsExport:
        """Inline unexported local types a callable mentions (React props types, mostly)."""
        if not item.is_callable and item.type_text is None:
            return item
        mentioned = " ".join([p.type or "" for p in item.params or ()] + [item.type_text or ""])
        found: list[JsExport] = []
        for word in sorted(set(re.findall(r"[A-Za-z_$][\w$]*", mentioned))):
            if word in self.exported_locals:
                continue
            for local in self.locals.get(word, []):
                if local.kind in ("interface", "type") and local.type_text is not None:
                    found.append(local)
        return replace(item, local_types=tuple(found)) if found else item


_EXPORT_LIST = re.compile(
    r"export\s+(?:type\s+)?\{(?P<names>[^{}]*)\}\s*(?:from\s*(?P<source>'[^']*'|\"[^\"]*\"))?\s*;?"
)
_SPECIFIER = re.compile(r"(?:type\s+)?(?P<local>[\w$]+)(?:\s+as\s+(?P<alias>[\w$]+))?")


def _export_list(node: Node) -> tuple[list[tuple[str, str]], str | None] | None:
    """``export { a, type B, c as d } from "x"`` read from its text: (local, exported) names
    and the quoted source; None for any other statement."""
    match = _EXPORT_LIST.fullmatch(_text(node).strip())
    if match is None:
        return None
    names = []
    for part in match.group("names").split(","):
        spec = _SPECIFIER.fullmatch(part.strip())
        if spec is None:
            if part.strip():
                return None
            continue
        local = spec.group("local")
        names.append((local, spec.group("alias") or local))
    return names, match.group("source")


def _reexport(name: str, text: str, line: int, kind: str = "reexport") -> JsExport:
    return JsExport(name, kind, line, text, body=text)


def _is_hidden(member: Node) -> bool:
    """Private or protected: no consumer may use it."""
    return any(
        child.type == "accessibility_modifier" and _text(child) in ("private", "protected")
        for child in member.children
    )


def is_documented_internal(node: Node) -> bool:
    """The doc comment right above ``node`` marks it internal."""
    previous = node.prev_named_sibling
    return (
        previous is not None
        and previous.type == "comment"
        and previous.end_point[0] >= node.start_point[0] - 1
        and INTERNAL_DOC.search(_text(previous)) is not None
    )


def _parameters(node: Node | None) -> tuple[JsParam, ...]:
    if node is None:
        return ()
    params: list[JsParam] = []
    for child in node.named_children:
        param = _parameter(child)
        if param is not None:
            params.append(param)
    return tuple(params)


def _parameter(node: Node) -> JsParam | None:
    if node.type in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        if pattern is None or pattern.type == "this":
            return None
        rest = pattern.type == "rest_pattern"
        name = normalize(_text(pattern)).removeprefix("...")
        optional = (
            node.type == "optional_parameter" or node.child_by_field_name("value") is not None
        )
        return JsParam(name, _annotation(node.child_by_field_name("type")), optional, rest)
    if node.type == "assignment_pattern":
        return JsParam(normalize(_text(node.child_by_field_name("left"))), None, True, False)
    if node.type == "rest_pattern":
        return JsParam(normalize(_text(node)).removeprefix("..."), None, False, True)
    if node.type in ("identifier", "object_pattern", "array_pattern"):
        return JsParam(normalize(_text(node)), None, False, False)
    return None


def _type_members(body: Node | None) -> tuple[tuple[str, str], ...]:
    """Members of an interface body or object type: (name, normalized declaration)."""
    members: list[tuple[str, str]] = []
    for child in body.named_children if body is not None else []:
        if child.type == "comment":
            continue
        name = _text(child.child_by_field_name("name")) or child.type
        members.append((name, normalize(_text(child))))
    return tuple(members)


def _member_signatures(body: Node | None) -> tuple[MemberSignature, ...]:
    """Parameters of the callable members of an interface body or object type."""
    found: list[MemberSignature] = []
    for child in body.named_children if body is not None else []:
        if child.type in ("call_signature", "construct_signature"):
            params = _parameters(child.child_by_field_name("parameters"))
            found.append(MemberSignature(child.type, params, child.type == "call_signature"))
        elif child.type == "method_signature":
            params = _parameters(child.child_by_field_name("parameters"))
            name = _text(child.child_by_field_name("name"))
            found.append(MemberSignature(name, params, False))
        elif child.type == "property_signature":
            annotation = child.child_by_field_name("type")
            function = annotation.named_children[0] if annotation is not None else None
            if function is not None and function.type == "function_type":
                params = _parameters(function.child_by_field_name("parameters"))
                name = _text(child.child_by_field_name("name"))
                found.append(MemberSignature(name, params, True))
    return tuple(found)


def _render_members(members: tuple[tuple[str, str], ...]) -> str:
    return "{ " + "; ".join(text for _, text in members) + " }" if members else "{}"
