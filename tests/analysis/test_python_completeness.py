"""Python API corners: inherited changes, decorators, __all__, overloads, generated __init__."""

from __future__ import annotations

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import MemoryTree


def _compare(base: str, head: str) -> list[BreakingChange]:
    path = "pkg/mod.py"
    return find_breaking_changes(
        [ChangedFile(path=path, status=FileStatus.modified)],
        MemoryTree({"pkg/__init__.py": "", path: base}),
        MemoryTree({"pkg/__init__.py": "", path: head}),
        None,
        None,
    )


def _found(changes: list[BreakingChange]) -> list[tuple[str, BreakingKind, str]]:
    return [(c.symbol, c.kind, c.detail) for c in changes]


def test_a_base_method_change_is_one_finding_listing_every_public_subclass() -> None:
    classes = "class Child(Base):\n    pass\n\nclass Other(Child):\n    pass\n"
    base = "class Base:\n    def run(self, a): ...\n\n" + classes
    head = "class Base:\n    def run(self, a, b): ...\n\n" + classes

    [change] = _compare(base, head)

    assert change.symbol == "Base.run"
    assert change.detail.endswith("(inherited by `Child`, `Other`)")
    assert {"pkg.mod.Child.run", "pkg.mod.Other.run"} <= set(change.public_paths)


def test_signatures_behind_decorator_factories_and_functools_wraps_are_compared() -> None:
    decorators = (
        "import functools\n\ndef retry(n):\n    def deco(f):\n        return f\n    return deco\n\n"
        "def logged(f):\n    @functools.wraps(f)\n    def inner(*a, **k):\n"
        "        return f(*a, **k)\n    return inner\n\n"
    )
    base = (
        decorators + "@retry(3)\ndef fetch(url, timeout): ...\n\n@logged\ndef send(to, body): ...\n"
    )
    head = decorators + "@retry(3)\ndef fetch(url): ...\n\n@logged\ndef send(to): ...\n"

    assert _found(_compare(base, head)) == [
        ("fetch", BreakingKind.changed_signature, "parameter `timeout` was removed"),
        ("send", BreakingKind.changed_signature, "parameter `body` was removed"),
    ]


def test_a_name_dropped_from_all_but_still_defined_is_still_compared() -> None:
    """``from pkg.mod import b`` still works: griffe (2.4) reports no removed object for a name
    left out of ``__all__`` that the module still defines, and still compares its signature."""
    base = "__all__ = ['a', 'b']\n\ndef a(): ...\n\ndef b(x): ...\n"
    head = "__all__ = ['a']\n\ndef a(): ...\n\ndef b(x): ...\n"

    assert _compare(base, head) == []
    assert [(c.symbol, c.kind) for c in _compare(base, head.replace("b(x)", "b()"))] == [
        ("b", BreakingKind.changed_signature)
    ]


def test_an_overload_call_no_overload_takes_breaks_one_with_other_annotations_does_not() -> None:
    # griffe compares no annotation: ``f(x: str)`` dropped still leaves ``f(x: int)``, which
    # takes the same call; ``h(x, y)`` dropped leaves no overload with a second parameter.
    base = (
        "from typing import overload\n\n@overload\ndef f(x: int) -> int: ...\n"
        "@overload\ndef f(x: str) -> str: ...\ndef f(x): return x\n\n"
        "@overload\ndef h(x: int) -> int: ...\n@overload\ndef h(x: int, y: int) -> int: ...\n"
        "def h(x, y=0): return x\n"
    )
    head = (
        "from typing import overload\n\n@overload\ndef f(x: int) -> int: ...\n"
        "def f(x): return x\n\n@overload\ndef h(x: int) -> int: ...\ndef h(x): return x\n"
    )

    assert _found(_compare(base, head)) == [
        ("h", BreakingKind.changed_signature, "no overload accepts `h(x: int, y: int)` any more")
    ]


def test_dataclass_attrs_and_pydantic_fields_are_constructor_parameters() -> None:
    base = (
        "import attrs\nfrom dataclasses import KW_ONLY, dataclass, field\n"
        "from pydantic import BaseModel\n\n"
        "@dataclass\nclass Point:\n    x: int\n    y: int = field(default=0)\n\n"
        "@attrs.define\nclass Box:\n    w: int\n\n"
        "class User(BaseModel):\n    name: str\n\n"
        "@dataclass\nclass Flags:\n    a: int\n    b: int = 1\n"
    )
    head = (
        "import attrs\nfrom dataclasses import KW_ONLY, dataclass, field\n"
        "from pydantic import BaseModel\n\n"
        "@dataclass\nclass Point:\n    x: int\n    y: int = field(default=0)\n    z: int = 0\n\n"
        "@attrs.define\nclass Box:\n    w: int\n    h: int\n\n"
        "class User(BaseModel):\n    name: str\n    email: str\n\n"
        "@dataclass\nclass Flags:\n    a: int\n    _: KW_ONLY\n    b: int = 1\n"
    )

    assert _found(_compare(base, head)) == [
        ("Box.__init__", BreakingKind.changed_signature, "required parameter `h` was added"),
        ("User.__init__", BreakingKind.changed_signature, "required parameter `email` was added"),
        (
            "Flags.__init__",
            BreakingKind.changed_signature,
            "parameter `b` changed from positional or keyword to keyword-only",
        ),
    ]


def test_dataclass_kw_only_and_parameter_kind_moves_break_positional_callers() -> None:
    base = (
        "from dataclasses import dataclass\n\n@dataclass\nclass P:\n    x: int\n\n"
        "def f(a, b): ...\n\ndef g(a, b): ...\n"
    )
    head = (
        "from dataclasses import dataclass\n\n@dataclass(kw_only=True)\nclass P:\n    x: int\n\n"
        "def f(a, *, b): ...\n\ndef g(a, b, /): ...\n"
    )

    found = {(c.symbol, c.detail) for c in _compare(base, head)}

    assert found == {
        ("P.__init__", "parameter `x` changed from positional or keyword to keyword-only"),
        ("f", "parameter `b` changed from positional or keyword to keyword-only"),
        (
            "g",
            "parameter `a` changed from positional or keyword to positional-only; "
            "parameter `b` changed from positional or keyword to positional-only",
        ),
    }


def test_a_removed_return_annotation_is_a_type_change_as_griffe_judges_it() -> None:
    base = (
        "def load(path) -> dict[str, str]: ...\n\n"
        "class C:\n    @property\n    def size(self) -> int: ...\n"
    )
    head = "def load(path): ...\n\nclass C:\n    @property\n    def size(self): ...\n"

    assert _found(_compare(base, head)) == [
        (
            "load",
            BreakingKind.changed_type,
            "return annotation `dict[str, str]` was removed: typed callers lose it",
        )
    ]  # a property is an attribute to griffe: its annotation is not a return type


def test_a_class_that_stops_being_generic_or_a_protocol_changed_type() -> None:
    base = (
        "from typing import Generic, Protocol, TypeVar\nT = TypeVar('T')\n\n"
        "class Box(Generic[T]): ...\n\nclass Sized(Protocol):\n    def size(self) -> int: ...\n\n"
        "class Plain(object): ...\n"
    )
    head = (
        "from typing import Generic, Protocol, TypeVar\nT = TypeVar('T')\n\n"
        "class Box: ...\n\nclass Sized:\n    def size(self) -> int: ...\n\nclass Plain: ...\n"
    )

    assert _found(_compare(base, head)) == [
        ("Box", BreakingKind.changed_type, "no longer inherits from `Generic[T]`"),
        ("Sized", BreakingKind.changed_type, "no longer inherits from `Protocol`"),
    ]


def test_a_property_that_became_a_method_changed_how_callers_use_it() -> None:
    base = (
        "class Arrow:\n    @property\n    def timestamp(self) -> int: ...\n\n"
        "    insert = staticmethod(len)\n"
    )
    head = (
        "class Arrow:\n    def timestamp(self) -> float: ...\n\n"
        "    @staticmethod\n    def insert(obj): ...\n"
    )

    # arrow 1.0: ``a.timestamp`` is now a bound method, where ``a.insert(x)`` is called alike
    assert _found(_compare(base, head)) == [
        (
            "Arrow.timestamp",
            BreakingKind.changed_signature,
            "changed from property to function",
        )
    ]
