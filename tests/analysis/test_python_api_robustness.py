"""The Python analyzer on release-shaped packages: never raising, never reading the cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

from prflow.analysis.breaking_python import find_python_breaking_changes
from prflow.analysis.findings import BreakingKind
from prflow.analysis.parse_cache import InputLimits, MemoryParseCache
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import DirectoryTree, MemoryTree

# A flat layout (package at the repository root) with a compiled-extension fallback
# whose target has no source, a stdlib compat alias, and a namespace subpackage.
SHAPES_INIT = """\
from ._speedups import fast_area  # compiled: no source in the repository
from collections import OrderedDict as OrderedDict
from .shapes import Shape, Square, area
from .extra.geometry import Polygon

__all__ = ["Shape", "Square", "area", "fast_area", "OrderedDict", "Polygon"]
"""
SHAPES = """\
class Shape:
    def scale(self, factor: float) -> "Shape":
        return self

    def describe(self) -> str:
        return "shape"


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side


def area(shape: Shape, precise: bool = False) -> float:
    return 0.0
"""
GEOMETRY = """\
from ..shapes import Shape


class Polygon(Shape):
    def corners(self) -> int:
        return 3
"""


def write_repo(root: Path, shapes: str, geometry: str = GEOMETRY) -> None:
    (root / "shapes" / "extra").mkdir(parents=True)  # extra/ has no __init__.py
    (root / "shapes" / "__init__.py").write_text(SHAPES_INIT)
    (root / "shapes" / "shapes.py").write_text(shapes)
    (root / "shapes" / "extra" / "geometry.py").write_text(geometry)


def analyse(tmp_path: Path, head_shapes: str, head_geometry: str = GEOMETRY) -> tuple[list, list]:  # type: ignore[type-arg]
    write_repo(tmp_path / "base", SHAPES)
    write_repo(tmp_path / "head", head_shapes, head_geometry)
    changed = [ChangedFile(path="shapes/shapes.py", status=FileStatus.modified)]
    if head_geometry != GEOMETRY:
        changed.append(ChangedFile(path="shapes/extra/geometry.py", status=FileStatus.modified))
    result = find_python_breaking_changes(
        changed, DirectoryTree(tmp_path / "base"), DirectoryTree(tmp_path / "head")
    )
    return result.changes, result.not_analysed


def test_inherited_member_removed_is_one_finding_at_its_definition(tmp_path: Path) -> None:
    head = SHAPES.replace('    def describe(self) -> str:\n        return "shape"\n', "")

    changes, _ = analyse(tmp_path, head)

    [removed] = [c for c in changes if c.kind is BreakingKind.removed_export]
    assert (removed.file, removed.symbol) == ("shapes/shapes.py", "Shape.describe")
    # Square (same module) and Polygon (a namespace subpackage) inherited it: listed, not repeated.
    assert "inherited by `Polygon`, `Square`" in removed.detail
    assert "shapes.Polygon.describe" in removed.public_paths


def test_results_do_not_depend_on_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = SHAPES.replace("precise: bool = False", "precise: bool")
    expected, _ = analyse(tmp_path / "a", head)
    # A checkout of the same package name in the cwd must not be read instead of the snapshots.
    write_repo(tmp_path / "cwd", "")
    monkeypatch.chdir(tmp_path / "cwd")

    again, _ = analyse(tmp_path / "b", head)

    assert [(c.file, c.symbol, c.detail) for c in again] == [
        (c.file, c.symbol, c.detail) for c in expected
    ]
    assert [(c.symbol, c.detail) for c in again] == [
        ("area", "parameter `precise` became required")
    ]


def test_unresolvable_alias_is_listed_not_raised(tmp_path: Path) -> None:
    write_repo(tmp_path / "base", SHAPES)
    write_repo(tmp_path / "head", SHAPES.replace("-> float:", ":"))
    (tmp_path / "head" / "shapes" / "__init__.py").write_text("# shapes\n" + SHAPES_INIT)
    changed = [
        ChangedFile(path="shapes/__init__.py", status=FileStatus.modified),
        ChangedFile(path="shapes/shapes.py", status=FileStatus.modified),
    ]

    result = find_python_breaking_changes(
        changed, DirectoryTree(tmp_path / "base"), DirectoryTree(tmp_path / "head")
    )
    changes, not_analysed = result.changes, result.not_analysed

    assert [(c.symbol, c.kind) for c in changes] == [("area", BreakingKind.changed_type)]
    assert [(n.path, n.symbol, n.reason) for n in not_analysed] == [
        (
            "shapes/__init__.py",
            "shapes.fast_area",
            "no source for `shapes._speedups` (compiled extension?)",
        )
    ]  # the stdlib alias OrderedDict is simply out of scope


def test_object_base_and_narrowed_return_types_are_not_breaking() -> None:
    base = {"m.py": "class A(object):\n    def get(self) -> str | None:\n        return None\n"}
    head = {"m.py": "class A:\n    def get(self) -> str:\n        return ''\n"}
    changed = [ChangedFile(path="m.py", status=FileStatus.modified)]

    result = find_python_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    assert result.changes == []


def test_return_and_attribute_types_are_judged_as_griffe_judges_them() -> None:
    # An API checker's rule: only a removed return annotation breaks; a widened return type
    # or another attribute annotation is the same call and the same read.
    base = {"m.py": "LIMIT: int = 3\ndef get() -> str:\n    ...\ndef put() -> int:\n    ...\n"}
    head = {"m.py": "LIMIT: float = 3.0\ndef get() -> str | None:\n    ...\ndef put():\n    ...\n"}
    changed = [ChangedFile(path="m.py", status=FileStatus.modified)]

    [change] = find_python_breaking_changes(changed, MemoryTree(base), MemoryTree(head)).changes

    assert (change.symbol, change.kind) == ("put", BreakingKind.changed_type)
    assert change.severity.value == "low"
    assert change.detail.startswith("return annotation `int` was removed")


def test_unchanged_files_are_parsed_once_across_sides_and_runs() -> None:
    files = {f"pkg/m{i}.py": f"def f{i}(x: int) -> int:\n    return x\n" for i in range(5)}
    base = {"pkg/__init__.py": "from .m0 import f0\n", **files}
    head = {**base, "pkg/m0.py": "def f0(x: int, y: int) -> int:\n    return x\n"}
    changed = [ChangedFile(path="pkg/m0.py", status=FileStatus.modified)]
    cache = MemoryParseCache()

    first = find_python_breaking_changes(changed, MemoryTree(base), MemoryTree(head), cache)
    second = find_python_breaking_changes(changed, MemoryTree(base), MemoryTree(head), cache)

    # m0 at base and head differ; __init__ is shared by both sides; m1..m4 are never read.
    assert first.parsed_files == 3
    assert second.parsed_files == 0
    assert [c.symbol for c in second.changes] == [c.symbol for c in first.changes] == ["f0"]


def test_files_over_the_size_limit_are_not_analysed() -> None:
    big = "def f() -> None:\n    pass\n" + "x = 1\n" * 200
    changed = [ChangedFile(path="big.py", status=FileStatus.modified)]

    result = find_python_breaking_changes(
        changed,
        MemoryTree({"big.py": big}),
        MemoryTree({"big.py": "x = 1\n"}),
        limits=InputLimits(max_lines=100),
    )

    assert result.changes == []
    assert [(n.path, n.reason) for n in result.not_analysed] == [
        ("big.py", "more than 100 lines (203); so its names were compared on neither side")
    ]


def test_an_inheritance_cycle_is_analysed_without_hanging() -> None:
    # Python refuses this at import time, but a parser sees it, and a release can ship it.
    base = {
        "loop/__init__.py": "from .a import A\nfrom .b import B\n",
        "loop/a.py": "from .b import B\n\n\nclass A(B):\n    def left(self) -> None: ...\n",
        "loop/b.py": "from .a import A\n\n\nclass B(A):\n    def right(self) -> None: ...\n",
    }
    head = {
        **base,
        "loop/b.py": base["loop/b.py"].replace("    def right(self) -> None: ...\n", "    pass\n"),
    }
    changed = [ChangedFile(path="loop/b.py", status=FileStatus.modified)]

    result = find_python_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    removed = {c.symbol for c in result.changes if c.kind is BreakingKind.removed_export}
    assert removed == {"B.right"}


@pytest.mark.parametrize(
    "head_core",
    [
        "def run(x: int) -> int:\n    return x\n" + "# padding\n" * 200,  # over the size limit
        "def run(x: int) -> int:\n    return x\n\ndef broken(:\n",  # does not parse
    ],
    ids=["too-big", "syntax-error"],
)
def test_a_file_read_on_one_side_only_invents_no_removals(head_core: str) -> None:
    # pkg re-exports core's names through a star import and a class inherits from core: a
    # head-side core.py that cannot be read must not make run, Engine, Engine.start and
    # Car.start look removed. It is listed as not analysed, on both sides.
    core = "def run(x: int) -> int:\n    return x\n\n\nclass Engine:\n    def start(self): ...\n"
    base = {
        "pkg/__init__.py": "from .core import *\n",
        "pkg/core.py": core,
        "pkg/car.py": "from .core import Engine\n\n\nclass Car(Engine):\n    pass\n",
    }
    head = {**base, "pkg/core.py": head_core}
    changed = [ChangedFile(path="pkg/core.py", status=FileStatus.modified)]

    result = find_python_breaking_changes(
        changed, MemoryTree(base), MemoryTree(head), limits=InputLimits(max_lines=100)
    )

    assert result.changes == []
    [note] = [n for n in result.not_analysed if n.path == "pkg/core.py" and n.symbol is None]
    assert note.reason.endswith("so its names were compared on neither side")
