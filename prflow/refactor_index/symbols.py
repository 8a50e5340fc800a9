"""Symbols, exports and imports of one file, read with tree-sitter.

Python: functions, classes, methods, the module docstring, ``__all__`` (or
the public top-level names), imported modules. JavaScript/TypeScript/JSX/TSX:
function declarations, functions bound by ``const``, classes and their
methods, exported names, import and re-export specifiers, ``"use client"``
and ``"use server"`` directives, and for each function the React hooks it
calls and whether it renders JSX or a ``<Suspense>`` boundary. A file that
does not parse cleanly still yields whatever tree-sitter recovered.

:func:`parse_file` is the parse-cache entry point (text, path) -> JSON bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript

from prflow.js_files import PLAIN_JS_SUFFIXES, TS_SUFFIXES, TSX_SUFFIXES
from prflow.refactor_index.models import FileRecord, SymbolRecord
from prflow.refactor_index.terms import words
from prflow.source_suffixes import PYTHON_SUFFIXES

PARSER_NAME = "refactor-index"
PARSER_VERSION = "1"
MAX_TERMS = 300
_DOC_CHARS = 300
_BODY_CHARS = 400
_HOOK = re.compile(r"^use[A-Z0-9]")
_JS_FUNCTIONS = frozenset(
    {"function_declaration", "generator_function_declaration", "function_expression",
     "arrow_function", "function", "generator_function"}
)  # fmt: skip
_JSX = frozenset({"jsx_element", "jsx_self_closing_element", "jsx_fragment"})


def language_of(path: str) -> str | None:
    """The grammar a path is read with, or None for files the index does not parse."""
    if path.endswith(PYTHON_SUFFIXES):
        return "python"
    if path.endswith((*TSX_SUFFIXES, ".jsx")):
        return "tsx"
    if path.endswith(TS_SUFFIXES):
        return "typescript"
    if path.endswith(PLAIN_JS_SUFFIXES):
        return "javascript"
    return None


@cache
def _parser(language: str) -> tree_sitter.Parser:
    if language == "python":
        grammar = tree_sitter.Language(tree_sitter_python.language())
    elif language == "typescript":
        grammar = tree_sitter.Language(tree_sitter_typescript.language_typescript())
    elif language == "tsx":
        grammar = tree_sitter.Language(tree_sitter_typescript.language_tsx())
    else:
        grammar = tree_sitter.Language(tree_sitter_javascript.language())
    return tree_sitter.Parser(grammar)


def parse_file(text: str, path: str) -> bytes:
    """The :class:`FileRecord` of ``text`` (read as ``path``'s language), JSON-encoded."""
    return read_file(text, path).model_dump_json(exclude_defaults=True).encode("utf-8")


def decode_record(data: bytes) -> FileRecord:
    return FileRecord.model_validate_json(data)


def read_file(text: str, path: str) -> FileRecord:
    """Symbols, exports and imports of one file."""
    language = language_of(path)
    if language is None:
        raise ValueError(f"{path} is not a Python or JavaScript/TypeScript file")
    source = text.encode("utf-8", errors="replace")
    root = _parser(language).parse(source).root_node
    terms = dict(words(text, MAX_TERMS))
    if language == "python":
        return _python_file(root, terms)
    # `.jsx` files are parsed with the TSX grammar, which reads JSX; the record says javascript.
    shown = "javascript" if path.endswith(".jsx") else language
    return _js_file(root, terms, shown)


def _text(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def _first_line(node: tree_sitter.Node) -> str:
    return _text(node).split("\n", 1)[0].strip()[:200]


def _short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --- Python -----------------------------------------------------------------------------------


def _py_docstring(block: tree_sitter.Node | None) -> str:
    if block is None or not block.named_children:
        return ""
    first = block.named_children[0]
    if first.type == "expression_statement" and first.named_children:
        value = first.named_children[0]
        if value.type == "string":
            content = "".join(
                _text(part) for part in value.named_children if part.type == "string_content"
            )
            return _short(content, _DOC_CHARS)
    return ""


def _py_definitions(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Function and class definitions directly in ``node`` (decorators unwrapped)."""
    for child in node.named_children:
        if child.type == "decorated_definition":
            inner = child.child_by_field_name("definition")
            if inner is not None:
                yield inner
        elif child.type in ("function_definition", "class_definition"):
            yield child


def _py_symbol(node: tree_sitter.Node, kind: str, exported: bool) -> SymbolRecord:
    body = node.child_by_field_name("body")
    return SymbolRecord(
        name=_text(node.child_by_field_name("name")),
        kind="method" if kind == "method" else kind,  # type: ignore[arg-type]
        line=node.start_point[0] + 1,
        end_line=node.end_point[0] + 1,
        signature=_first_line(node),
        doc=_py_docstring(body),
        body_head=_short(_text(body), _BODY_CHARS),
        exported=exported,
    )


def _py_all(root: tree_sitter.Node) -> list[str] | None:
    for statement in root.named_children:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        if assignment.type not in ("assignment", "augmented_assignment"):
            continue
        if _text(assignment.child_by_field_name("left")) != "__all__":
            continue
        value = assignment.child_by_field_name("right")
        if value is None or value.type not in ("list", "tuple"):
            return None
        return [
            "".join(_text(part) for part in item.named_children if part.type == "string_content")
            for item in value.named_children
            if item.type == "string"
        ]
    return None


def _py_imports(root: tree_sitter.Node) -> list[str]:
    found: list[str] = []
    for node in root.named_children:
        if node.type == "import_statement":
            for name in node.named_children:
                target = name.child_by_field_name("name") if name.type == "aliased_import" else name
                found.append(_text(target))
        elif node.type == "import_from_statement":
            found.append(_text(node.child_by_field_name("module_name")))
    return list(dict.fromkeys(name for name in found if name))


def _python_file(root: tree_sitter.Node, terms: dict[str, int]) -> FileRecord:
    declared = _py_all(root)
    symbols: list[SymbolRecord] = []
    top_level: list[str] = []
    for node in _py_definitions(root):
        name = _text(node.child_by_field_name("name"))
        top_level.append(name)
        public = name in declared if declared is not None else not name.startswith("_")
        kind = "class" if node.type == "class_definition" else "function"
        symbols.append(_py_symbol(node, kind, public))
        body = node.child_by_field_name("body")
        if kind == "class" and body is not None:
            for method in _py_definitions(body):
                if method.type == "function_definition":
                    record = _py_symbol(method, "method", public)
                    symbols.append(record.model_copy(update={"name": f"{name}.{record.name}"}))
    exports = declared if declared is not None else [n for n in top_level if not n.startswith("_")]
    statements = [n for n in root.named_children if n.type != "comment"]
    barrel = bool(statements) and all(
        n.type in ("import_statement", "import_from_statement")
        or (n.type == "expression_statement" and (_py_all_stmt(n) or _is_string_stmt(n)))
        for n in statements
    )
    has_import = any(n.type == "import_from_statement" for n in statements)
    return FileRecord(
        language="python",
        doc=_py_docstring(root),
        symbols=symbols,
        exports=exports,
        imports=_py_imports(root),
        terms=terms,
        is_barrel=barrel and has_import,
    )


def _py_all_stmt(statement: tree_sitter.Node) -> bool:
    first = statement.named_children[0] if statement.named_children else None
    return first is not None and _text(first.child_by_field_name("left")) == "__all__"


def _is_string_stmt(statement: tree_sitter.Node) -> bool:
    return bool(statement.named_children) and statement.named_children[0].type == "string"


# --- JavaScript / TypeScript ------------------------------------------------------------------


@dataclass
class _Scan:
    hooks: list[str]
    jsx: bool = False
    suspense: bool = False


def _scan_body(node: tree_sitter.Node) -> _Scan:
    """Hooks called, JSX rendered and ``<Suspense>`` used inside a function (nested included)."""
    scan = _Scan(hooks=[])
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind == "call_expression":
            callee = current.child_by_field_name("function")
            name = _text(callee.child_by_field_name("property")) if callee is not None else ""
            if callee is not None and callee.type == "identifier":
                name = _text(callee)
            if _HOOK.match(name) and name not in scan.hooks:
                scan.hooks.append(name)
        elif kind in _JSX:
            scan.jsx = True
        elif kind in ("jsx_opening_element", "jsx_self_closing_element"):
            tag = _text(current.child_by_field_name("name"))
            if tag in ("Suspense", "React.Suspense"):
                scan.suspense = True
        stack.extend(current.named_children)
    return scan


def _js_doc(node: tree_sitter.Node) -> str:
    """The ``/** ... */`` comment right before a declaration (or its export statement)."""
    target = (
        node.parent if node.parent is not None and node.parent.type == "export_statement" else node
    )
    previous = target.prev_named_sibling
    if previous is not None and previous.type == "comment" and _text(previous).startswith("/**"):
        body = re.sub(r"^\s*/?\*+/?|\*+/\s*$", "", _text(previous), flags=re.MULTILINE)
        return _short(body, _DOC_CHARS)
    return ""


def _js_function_symbol(
    declaration: tree_sitter.Node, name: str, function: tree_sitter.Node, exported: bool
) -> SymbolRecord:
    scan = _scan_body(function)
    component = bool(name[:1].isupper() and scan.jsx)
    return SymbolRecord(
        name=name,
        kind="component" if component else "function",
        line=declaration.start_point[0] + 1,
        end_line=declaration.end_point[0] + 1,
        signature=_first_line(declaration),
        doc=_js_doc(declaration),
        body_head=_short(_text(function.child_by_field_name("body")), _BODY_CHARS),
        exported=exported,
        hooks=scan.hooks,
        renders_suspense=scan.suspense,
        returns_jsx=scan.jsx,
    )


def _js_declarations(node: tree_sitter.Node, exported: bool) -> Iterator[SymbolRecord]:
    kind = node.type
    if kind in ("function_declaration", "generator_function_declaration"):
        name = _text(node.child_by_field_name("name")) or "default"
        yield _js_function_symbol(node, name, node, exported)
    elif kind in ("class_declaration", "abstract_class_declaration", "class"):
        name = _text(node.child_by_field_name("name")) or "default"
        yield SymbolRecord(
            name=name,
            kind="class",
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            signature=_first_line(node),
            doc=_js_doc(node),
            exported=exported,
        )
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type == "method_definition":
                method = _js_function_symbol(
                    member, _text(member.child_by_field_name("name")), member, exported
                )
                yield method.model_copy(update={"name": f"{name}.{method.name}", "kind": "method"})
    elif kind in ("lexical_declaration", "variable_declaration"):
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            value = declarator.child_by_field_name("value")
            function = _unwrap_call(value)
            if function is not None and function.type in _JS_FUNCTIONS:
                name = _text(declarator.child_by_field_name("name"))
                symbol = _js_function_symbol(node, name, function, exported)
                yield symbol.model_copy(update={"line": declarator.start_point[0] + 1})


def _unwrap_call(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """``memo(() => ...)`` / ``forwardRef(function ...)``: the wrapped function."""
    if value is not None and value.type == "call_expression":
        arguments = value.child_by_field_name("arguments")
        if arguments is not None and arguments.named_children:
            return arguments.named_children[0]
    return value


def _js_string(node: tree_sitter.Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")


def _js_file(root: tree_sitter.Node, terms: dict[str, int], language: str) -> FileRecord:
    symbols: list[SymbolRecord] = []
    exports: list[str] = []
    imports: list[str] = []
    directive: str | None = None
    statements = [n for n in root.named_children if n.type != "comment"]
    if statements and statements[0].type == "expression_statement":
        value = _js_string(
            statements[0].named_children[0] if statements[0].named_children else None
        )
        if value in ("use client", "use server"):
            directive = value
    reexports_only = True
    for node in statements:
        if node.type == "import_statement":
            specifier = _js_string(node.child_by_field_name("source"))
            if specifier:
                imports.append(specifier)
            continue
        if node.type == "export_statement":
            source = _js_string(node.child_by_field_name("source"))
            if source:
                imports.append(source)
            declaration = node.child_by_field_name("declaration")
            default = any(child.type == "default" for child in node.children)
            if declaration is None:
                exported_value = node.child_by_field_name("value")
                if exported_value is not None and exported_value.type in _JS_FUNCTIONS | {"class"}:
                    declaration = exported_value
            if declaration is not None:
                reexports_only = False
                found = list(_js_declarations(declaration, True))
                symbols.extend(found)
                if default:
                    exports.append("default")
                else:
                    exports.extend(s.name for s in found if s.kind != "method")
                    exports.extend(_declared_names(declaration))
            else:
                if default:
                    reexports_only = False
                    exports.append("default")
                exports.extend(_clause_names(node))
            continue
        if node is statements[0] and directive is not None:
            continue
        reexports_only = False
        symbols.extend(_js_declarations(node, False))
    barrel = reexports_only and any(n.type == "export_statement" for n in statements)
    imports.extend(_required(root))
    return FileRecord(
        language=language,  # type: ignore[arg-type]
        symbols=symbols,
        exports=list(dict.fromkeys(exports)),
        imports=list(dict.fromkeys(imports)),
        terms=terms,
        directive=directive,  # type: ignore[arg-type]
        is_barrel=barrel,
    )


def _declared_names(declaration: tree_sitter.Node) -> list[str]:
    """Names an exported declaration introduces besides functions and classes."""
    if declaration.type in ("lexical_declaration", "variable_declaration"):
        return [
            _text(d.child_by_field_name("name"))
            for d in declaration.named_children
            if d.type == "variable_declarator"
        ]
    name = declaration.child_by_field_name("name")
    return [_text(name)] if name is not None else []


def _clause_names(node: tree_sitter.Node) -> list[str]:
    names: list[str] = []
    for child in node.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                if spec.type == "export_specifier":
                    alias = spec.child_by_field_name("alias")
                    names.append(_text(alias or spec.child_by_field_name("name")))
        elif child.type == "namespace_export":
            names.extend(_text(c) for c in child.named_children)
    return names


def _required(root: tree_sitter.Node) -> list[str]:
    """``require("x")`` and ``import("x")`` specifiers anywhere in the file."""
    found: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if (
                callee is not None
                and _text(callee) in ("require", "import")
                and arguments is not None
                and arguments.named_children
            ):
                value = _js_string(arguments.named_children[0])
                if value:
                    found.append(value)
        stack.extend(node.named_children)
    return found
