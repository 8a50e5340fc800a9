"""What one Python file declares, read with :mod:`ast` (never imported), as plain data.

A :class:`ModuleSurface` holds every module-level name the file binds
(classes with their members, functions with their parameters, attributes,
imports), its star imports and its ``__all__``. It depends on the file's bytes
alone, not on where the file sits, so it can be cached by the git blob SHA and
shared between base, head and later runs; relative imports stay relative
until :mod:`prflow.analysis.py_package` places the module in its package.

Bindings follow the last assignment in source order, walking into ``if``,
``try`` and ``with`` blocks as griffe does: ``try: from ._speedups import f``
followed by ``except ImportError: def f(...)`` leaves the pure-Python ``f``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Literal

import msgspec

ParamKind = Literal[
    "positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword"
]

SURFACE_VERSION = "py-surface-7"
"""Bump when the extracted shape changes, so cached surfaces are read again."""


class Param(msgspec.Struct, frozen=True, array_like=True):
    name: str
    kind: ParamKind
    default: str | None = None
    annotation: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None and self.kind not in ("var_positional", "var_keyword")


class Function(msgspec.Struct, frozen=True, tag="function"):
    name: str
    line: int
    params: tuple[Param, ...]
    returns: str | None = None
    decorators: tuple[str, ...] = ()
    is_async: bool = False
    overloads: tuple[tuple[Param, ...], ...] = ()
    """The parameters of each ``@overload`` declared before it (the API callers see)."""

    @property
    def is_property(self) -> bool:
        return any(d.endswith(("property", "cached_property")) for d in self.decorators)


class Attribute(msgspec.Struct, frozen=True, tag="attribute"):
    name: str
    line: int
    annotation: str | None = None
    value: str | None = None


class Class(msgspec.Struct, frozen=True, tag="class"):
    name: str
    line: int
    bases: tuple[str, ...] = ()
    members: dict[str, Function | Attribute | Class] = {}
    decorators: tuple[str, ...] = ()


class Import(msgspec.Struct, frozen=True, tag="import"):
    """``name`` bound by an import of ``module`` (leading dots when relative).

    ``target`` is the imported name for ``from module import target``, None
    when the module itself is bound (``import a.b as c``).
    """

    name: str
    line: int
    module: str
    target: str | None = None
    fallback: Import | None = None
    """The import this one rebinds (``try``/``except ImportError``, ``if``/``else``): what the
    name is when this import's source is not in the tree, a compiled extension most often."""


Definition = Function | Attribute | Class
Binding = Function | Attribute | Class | Import


class ModuleSurface(msgspec.Struct, frozen=True):
    """Everything a module binds at its top level, plus what it re-exports by ``*``."""

    bindings: dict[str, Binding]
    star_imports: tuple[str, ...] = ()
    exports: tuple[str, ...] | None = None
    """``__all__``: literal names, and ``@name`` for "the ``__all__`` of binding name"."""
    lines: int = 0
    error: str | None = None
    imported: frozenset[str] = frozenset()
    """Names some import statement binds, even if later reassigned (griffe keeps them private)."""
    type_checking: frozenset[str] = frozenset()
    """Names only an import under ``if TYPE_CHECKING:`` binds: absent at run time, so a
    ``from module import *`` does not pass them on (griffe's rule too)."""


def unreadable_surface(text: str, error: BaseException) -> ModuleSurface:
    """The surface of a file that does not parse: nothing bound, the error kept."""
    lines = text.count("\n") + 1
    return ModuleSurface(bindings={}, lines=lines, error=f"{type(error).__name__}: {error}")


def surface_of_module(module: ast.Module, lines: int) -> ModuleSurface:
    """The surface of an already parsed module (``lines``: its source's line count)."""
    reader = _ModuleReader()
    reader.read_block(module.body)
    return ModuleSurface(
        bindings=reader.bindings,
        star_imports=tuple(dict.fromkeys(reader.star_imports)),
        exports=tuple(dict.fromkeys(reader.exports)) if reader.exports is not None else None,
        lines=lines,
        imported=frozenset(reader.imported),
        type_checking=frozenset(reader.type_checking),
    )


def _text(node: ast.AST | None, limit: int = 200) -> str | None:
    if node is None:
        return None
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # malformed or absurdly deep expressions
        return "<unreadable>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return _text(target, 120) or ""


def _block_children(statement: ast.stmt) -> list[list[ast.stmt]]:
    """Nested statement lists whose bindings land in the enclosing scope."""
    if isinstance(statement, ast.If):
        return [statement.body, statement.orelse]
    if isinstance(statement, ast.Try | ast.TryStar):
        handlers = [handler.body for handler in statement.handlers]
        return [statement.body, *handlers, statement.orelse, statement.finalbody]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [statement.body]
    return []


def read_function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Function:
    args = node.args
    params: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    for index, arg in enumerate(positional):
        kind: ParamKind = (
            "positional_only" if index < len(args.posonlyargs) else "positional_or_keyword"
        )
        params.append(Param(arg.arg, kind, _text(defaults[index], 80), _text(arg.annotation)))
    if args.vararg is not None:
        params.append(Param(args.vararg.arg, "var_positional", None, _text(args.vararg.annotation)))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        params.append(Param(arg.arg, "keyword_only", _text(default, 80), _text(arg.annotation)))
    if args.kwarg is not None:
        params.append(Param(args.kwarg.arg, "var_keyword", None, _text(args.kwarg.annotation)))
    return Function(
        name=node.name,
        line=node.lineno,
        params=tuple(params),
        returns=_text(node.returns),
        decorators=tuple(_decorator_name(d) for d in node.decorator_list),
        is_async=isinstance(node, ast.AsyncFunctionDef),
    )


def _is_accessor_of(existing: Binding | None, function: Function) -> bool:
    """``@x.setter def x``: the property ``x`` stays what it was."""
    if not isinstance(existing, Function) or not existing.is_property:
        return False
    return any(d == f"{function.name}.{part}" for d in function.decorators for part in _ACCESSORS)


_ACCESSORS = ("setter", "getter", "deleter")


def _assigned_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _assigned_names(element)]
    return []


class _ScopeReader:
    """Bindings of one scope (a module body or a class body)."""

    def __init__(self) -> None:
        self.bindings: dict[str, Binding] = {}
        self._overloads: dict[str, list[tuple[Param, ...]]] = {}

    def read_block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.read_statement(statement)
            for block in _block_children(statement):
                self.read_block(block)

    def read_statement(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            function = read_function(statement)
            if any(d.rsplit(".", 1)[-1] == "overload" for d in function.decorators):
                self._overloads.setdefault(function.name, []).append(function.params)
            overloads = tuple(self._overloads.get(function.name, ()))
            if overloads:
                function = msgspec.structs.replace(function, overloads=overloads)
            if not _is_accessor_of(self.bindings.get(function.name), function):
                self.bindings[function.name] = function
        elif isinstance(statement, ast.ClassDef):
            self.bindings[statement.name] = read_class(statement)
        elif isinstance(statement, ast.AnnAssign):
            for name in _assigned_names(statement.target):
                self.bindings[name] = Attribute(
                    name, statement.lineno, _text(statement.annotation), _text(statement.value, 80)
                )
        elif isinstance(statement, ast.Assign):
            value = _text(statement.value, 80)
            for target in statement.targets:
                for name in _assigned_names(target):
                    # griffe's rule: ``X = Fallback`` does not hide the class or function X.
                    if not isinstance(self.bindings.get(name), Class | Function):
                        self.bindings[name] = Attribute(name, statement.lineno, None, value)
        elif type(statement).__name__ == "TypeAlias":  # ``type X = ...`` (Python 3.12+)
            name = _text(getattr(statement, "name", None)) or ""
            value = _text(getattr(statement, "value", None))
            self.bindings[name] = Attribute(name, statement.lineno, "TypeAlias", value)


def read_class(node: ast.ClassDef) -> Class:
    reader = _ScopeReader()
    reader.read_block(node.body)
    members = dict(reader.bindings)
    init = members.get("__init__")
    if isinstance(init, Function):
        init_node = next(
            (
                n
                for n in node.body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "__init__"
            ),
            None,
        )
        if init_node is not None:
            for name, attribute in _instance_attributes(init_node).items():
                # griffe sets members in source order: ``self.fig = ...`` in ``__init__``
                # replaces a ``def fig`` written above ``__init__``; one written below wins.
                earlier = members.get(name)
                if earlier is None or (
                    isinstance(earlier, Function | Class) and earlier.line < init_node.lineno
                ):
                    members[name] = attribute
    elif init is None:
        generated = generated_init(node)
        if generated is not None:
            members["__init__"] = generated
    return Class(
        name=node.name,
        line=node.lineno,
        bases=tuple(_text(base, 120) or "" for base in node.bases),
        members={name: m for name, m in members.items() if not isinstance(m, Import)},
        decorators=tuple(_decorator_name(d) for d in node.decorator_list),
    )


_DATACLASS_DECORATORS = frozenset(
    {"dataclass", "define", "frozen", "mutable", "attrs", "s", "attributes", "dataclass_transform"}
)
_MODEL_BASES = frozenset({"BaseModel", "BaseSettings", "RootModel", "Struct"})
_FIELD_CALLS = frozenset({"field", "Field", "ib", "attrib"})


def generated_init(node: ast.ClassDef) -> Function | None:
    """The ``__init__`` a dataclass, attrs class or pydantic/msgspec model gets from its fields.

    Callers construct these classes with the fields as parameters, so a field
    added without a default, removed, or moved behind ``kw_only`` changes the
    constructor. Fields a base class contributes are not included.
    """
    keyword_only = False
    decorated = False
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = (_text(target, 120) or "").rsplit(".", 1)[-1]
        if name in _DATACLASS_DECORATORS:
            decorated = True
            if isinstance(decorator, ast.Call):
                keyword_only = any(
                    k.arg == "kw_only" and _text(k.value) == "True" for k in decorator.keywords
                )
    model = any((_text(b, 120) or "").rsplit(".", 1)[-1] in _MODEL_BASES for b in node.bases)
    if not decorated and not model:
        return None
    keyword_only = keyword_only or model  # a model's __init__ takes ``**data``
    params = [Param("self", "positional_or_keyword")]
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        annotation = _text(statement.annotation) or ""
        if "ClassVar" in annotation:
            continue
        if annotation.rsplit(".", 1)[-1] == "KW_ONLY":
            keyword_only = True
            continue
        if statement.target.id.startswith("_") and model:
            continue
        default = _field_default(statement.value)
        kind: ParamKind = "keyword_only" if keyword_only else "positional_or_keyword"
        params.append(Param(statement.target.id, kind, default, annotation or None))
    return Function("__init__", node.lineno, tuple(params), decorators=("generated",))


def _field_default(value: ast.expr | None) -> str | None:
    """The default a field gives its parameter, or None when it is required."""
    if value is None:
        return None
    if isinstance(value, ast.Call):
        target = _text(value.func, 80) or ""
        if target.rsplit(".", 1)[-1] in _FIELD_CALLS:
            for keyword in value.keywords:
                if keyword.arg in ("default", "default_factory", "factory"):
                    return _text(keyword.value, 80)
            first = value.args[0] if value.args else None
            if first is not None and _text(first) != "...":
                return _text(first, 80)  # pydantic ``Field(0)``
            return None
    return _text(value, 80)


def _instance_attributes(init: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Attribute]:
    """``self.x = ...`` / ``self.x: T = ...`` in ``__init__``, as griffe (2.4) counts members.

    griffe's visitor (``agents/visitor.py``, ``handle_attribute``) reads the statements of
    ``__init__`` itself, not of functions or classes nested in it, and only names spelled
    ``self.<name>`` (``nodes/assignments.py``, ``get_instance_names``); a statement with a
    target that is no name or dotted name (``self.x = d[k] = v``) gives it no name at all.
    """
    found: dict[str, Attribute] = {}
    for statement in _own_statements(init.body):
        targets: list[ast.expr] = []
        annotation: ast.expr | None = None
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign):
            targets, annotation = [statement.target], statement.annotation
        dotted = [_dotted(target) for target in targets]
        if not targets or any(name is None for name in dotted):
            continue
        for name in dotted:
            assert name is not None
            owner, _, attribute = name.partition(".")
            if owner == "self" and attribute and "." not in attribute:
                found.setdefault(
                    attribute, Attribute(attribute, statement.lineno, _text(annotation), None)
                )
    return found


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A function's statements, nested blocks included, nested functions and classes not."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                yield from _own_statements([child])
            elif isinstance(child, ast.ExceptHandler | ast.match_case):
                yield from _own_statements(child.body)


def _dotted(target: ast.expr) -> str | None:
    """``a.b.c`` for a name or attribute chain of names, else None (griffe's ``get_name``)."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        owner = _dotted(target.value)
        return f"{owner}.{target.attr}" if owner is not None else None
    return None


class _ModuleReader(_ScopeReader):
    """A module scope: also imports, star imports and ``__all__``."""

    def __init__(self) -> None:
        super().__init__()
        self.star_imports: list[str] = []
        self.exports: list[str] | None = None
        self.imported: set[str] = set()
        self.type_checking: set[str] = set()
        self._guarded = False

    def read_block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, ast.If) and _is_type_checking(statement.test):
                guarded, self._guarded = self._guarded, True
                self.read_block(statement.body)
                self._guarded = guarded
                self.read_block(statement.orelse)
                continue
            self.read_statement(statement)
            for block in _block_children(statement):
                self.read_block(block)

    def read_statement(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    self._bind_import(Import(alias.asname, statement.lineno, alias.name))
                else:
                    top = alias.name.split(".", 1)[0]
                    self._bind_import(Import(top, statement.lineno, top))
            return
        if isinstance(statement, ast.ImportFrom):
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.name == "*":
                    self.star_imports.append(module)
                    continue
                name = alias.asname or alias.name
                self._bind_import(Import(name, statement.lineno, module, alias.name))
            return
        if self._reads_all(statement):
            return
        super().read_statement(statement)

    def _bind_import(self, binding: Import) -> None:
        previous = self.bindings.get(binding.name)
        if isinstance(previous, Import) and (previous.module, previous.target) != (
            binding.module,
            binding.target,
        ):
            binding = msgspec.structs.replace(binding, fallback=previous)
        self.bindings[binding.name] = binding
        self.imported.add(binding.name)
        if self._guarded:
            self.type_checking.add(binding.name)
        else:
            self.type_checking.discard(binding.name)

    # ``__all__`` in its common spellings

    def _reads_all(self, statement: ast.stmt) -> bool:
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                self.exports = _export_items(statement.value)
                super().read_statement(statement)
                return True
        if (
            isinstance(statement, ast.AugAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "__all__"
        ):
            self.exports = [*(self.exports or []), *_export_items(statement.value)]
            return True
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            func = call.func
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "__all__"
                and func.attr in ("extend", "append")
                and call.args
            ):
                items = (
                    _export_items(call.args[0])
                    if func.attr == "extend"
                    else _export_items(ast.List([call.args[0]]))
                )
                self.exports = [*(self.exports or []), *items]
                return True
        return False


def _is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING"
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def _export_items(node: ast.expr | None) -> list[str]:
    """Names listed by an ``__all__`` expression; ``@m`` stands for ``m.__all__``."""
    if node is None:
        return []
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [
            element.value
            for element in node.elts
            if isinstance(element, ast.Constant) and isinstance(element.value, str)
        ]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [*_export_items(node.left), *_export_items(node.right)]
    if isinstance(node, ast.Attribute) and node.attr == "__all__":
        owner = _text(node.value)
        return [f"@{owner}"] if owner else []
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "tuple", "sorted", "set")
        and node.args
    ):
        return _export_items(node.args[0])
    return []
