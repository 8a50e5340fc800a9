"""Whether a new Python signature or annotation still serves callers written for the old one.

Parameters follow griffe's definition of breakage (removed, moved while
positional, newly required, incompatible kind change), minus one item: a
changed default value does not stop a call from working, so it is not
reported. Annotations are compared as types, not as text: narrowing a return
type (``str | None`` to ``str``) keeps every caller working, and so do a
removed annotation and spelling changes (``Optional[X]`` vs ``X | None``,
``typing.List`` vs ``list``).
"""

from __future__ import annotations

import ast
from functools import cache

from prflow.analysis.py_surface import Param

_POSITIONAL = ("positional_only", "positional_or_keyword")
_VARIADIC = ("var_positional", "var_keyword")
_KIND_WORDS = {
    "positional_only": "positional-only",
    "positional_or_keyword": "positional or keyword",
    "var_positional": "variadic positional",
    "keyword_only": "keyword-only",
    "var_keyword": "variadic keyword",
}
_BUILTIN_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
    "Text": "str",
    "NoneType": "None",
}
# origin -> origins whose values are also valid for it (a value of the key's subtype)
_SUBTYPES = {
    "Iterable": {"Iterator", "Generator", "Sequence", "list", "tuple", "set", "frozenset", "dict"},
    "Iterator": {"Generator"},
    "Sequence": {"list", "tuple", "str", "MutableSequence"},
    "Mapping": {"dict", "MutableMapping", "OrderedDict", "defaultdict"},
    "MutableMapping": {"dict", "OrderedDict", "defaultdict"},
    "Collection": {"list", "tuple", "set", "frozenset", "dict", "Sequence", "Mapping"},
    "AbstractSet": {"set", "frozenset"},
    "float": {"int"},
    "complex": {"float", "int"},
    "Callable": {"type"},
}
_TOP_TYPES = {"Any", "object"}


def parameter_breaks(old: tuple[Param, ...], new: tuple[Param, ...]) -> list[str]:
    """One reason per way a call that worked with ``old`` can fail with ``new``."""
    reasons: list[str] = []
    new_by_name: dict[str, tuple[int, Param]] = {}
    for index, param in enumerate(new):
        new_by_name.setdefault(param.name, (index, param))
    kinds = {param.kind for param in new}
    takes_args, takes_kwargs = "var_positional" in kinds, "var_keyword" in kinds
    for old_index, param in enumerate(old):
        if param.kind in _VARIADIC:
            if param.kind not in kinds:
                star = "*" if param.kind == "var_positional" else "**"
                reasons.append(f"no longer accepts `{star}{param.name}`")
            continue
        match = new_by_name.get(param.name)
        if match is None:
            swallowed = (
                (param.kind == "keyword_only" and takes_kwargs)
                or (param.kind == "positional_only" and takes_args)
                or (param.kind == "positional_or_keyword" and takes_args and takes_kwargs)
            )
            if not swallowed:
                reasons.append(f"parameter `{param.name}` was removed")
            continue
        new_index, replacement = match
        if replacement.required and not param.required:
            reasons.append(f"parameter `{param.name}` became required")
        if param.kind in _POSITIONAL and replacement.kind in _POSITIONAL and new_index != old_index:
            reasons.append(
                f"parameter `{param.name}` moved from position {old_index} to {new_index}"
            )
        if _incompatible_kind(param, replacement, takes_args, takes_kwargs):
            reasons.append(
                f"parameter `{param.name}` changed from {_KIND_WORDS[param.kind]} to "
                f"{_KIND_WORDS[replacement.kind]}"
            )
    old_names = {param.name for param in old}
    for param in new:
        if param.name not in old_names and param.required:
            reasons.append(f"required parameter `{param.name}` was added")
    return reasons


def _incompatible_kind(old: Param, new: Param, takes_args: bool, takes_kwargs: bool) -> bool:
    if old.kind == new.kind:
        return False
    return any(
        (
            old.kind == "positional_only" and new.kind == "keyword_only",
            old.kind == "keyword_only" and new.kind == "positional_only",
            old.kind == "positional_or_keyword" and new.kind in ("positional_only", "keyword_only"),
            new.kind == "var_keyword" and old.kind != "keyword_only" and not takes_args,
            new.kind == "var_positional" and old.kind != "positional_only" and not takes_kwargs,
        )
    )


def narrowed_or_same(old: str | None, new: str | None) -> bool:
    """False only when values of type ``new`` can surely surprise code written for ``old``.

    Annotations are text without imports, so only two cases count as sure:
    the new type adds members to the old union (``str`` to ``str | None``),
    or both sides are built-in types whose origins do not fit (``dict[...]``
    to ``list[...]``, ``int`` to ``str``). Anything else, such as a type
    variable, a project class or an alias we cannot see through, is given the
    benefit of the doubt. A removed or unparsable annotation is compatible.
    """
    if old is None or new is None or old == new:
        return True
    old_members, new_members = _union_members(old), _union_members(new)
    if old_members is None or new_members is None or old_members & _TOP_TYPES:
        return True
    if old_members < new_members:
        return False  # widened: callers now get values they never handled
    origins = {_origin(m) for m in old_members | new_members}
    if not origins <= _BUILTINS:
        return True
    return all(any(_assignable(n, o) for o in old_members) for n in new_members)


_BUILTINS = frozenset(
    {"int", "float", "complex", "str", "bytes", "bool", "None", "list", "dict", "tuple", "set"}
    | {"frozenset", "bytearray"}
)


def _origin(member: str) -> str:
    return member.partition("[")[0]


def _assignable(new: str, old: str) -> bool:
    if new in (old, "Never", "NoReturn"):
        return True
    new_origin, _, new_args = new.partition("[")
    old_origin, _, old_args = old.partition("[")
    if new_origin in _SUBTYPES.get(old_origin, ()):
        return not old_args or not new_args or new_args == old_args
    return new_origin == old_origin


@cache
def _union_members(annotation: str) -> frozenset[str] | None:
    try:
        node = ast.parse(annotation.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    members: set[str] = set()
    if not _collect(node, members):
        return None
    return frozenset(members)


def _collect(node: ast.expr, members: set[str]) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            inner = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            return False
        return _collect(inner, members)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _collect(node.left, members) and _collect(node.right, members)
    if isinstance(node, ast.Subscript):
        origin = _name(node.value)
        if origin in ("Optional", "Union"):
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if origin == "Optional":
                members.add("None")
            return all(_collect(element, members) for element in elements)
    members.add(_normalized(node))
    return True


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return ast.unparse(node)


def _normalized(node: ast.expr) -> str:
    """``typing.List[int]`` -> ``list[int]``: qualified names cut to their last part."""
    if isinstance(node, ast.Subscript):
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        inner = ", ".join(_normalized(element) for element in elements)
        return f"{_normalized(node.value)}[{inner}]"
    if isinstance(node, ast.List):
        return "[" + ", ".join(_normalized(element) for element in node.elts) + "]"
    name = _name(node)
    return _BUILTIN_ALIASES.get(name, name)
