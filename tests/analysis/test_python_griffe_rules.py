"""Rules prflow shares with griffe (2.4), each checked against griffe on the same two trees."""

from __future__ import annotations

from pathlib import Path

import griffe

from prflow.analysis.breaking_python import find_python_breaking_changes
from prflow.analysis.findings import BreakingChange
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import DirectoryTree


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _both(
    tmp_path: Path, base: dict[str, str], head: dict[str, str], changed: list[str]
) -> tuple[list[BreakingChange], set[str]]:
    """prflow's findings and the paths griffe reports, for package ``pkg``."""
    old_root, new_root = _write(tmp_path / "base", base), _write(tmp_path / "head", head)
    found = find_python_breaking_changes(
        [ChangedFile(path=p, status=FileStatus.modified) for p in changed],
        DirectoryTree(old_root),
        DirectoryTree(new_root),
    )
    loaded = [
        griffe.load("pkg", search_paths=[str(root)], try_relative_path=False, resolve_aliases=True)
        for root in (old_root, new_root)
    ]
    griffe_paths = {b.obj.path for b in griffe.find_breaking_changes(*loaded)}  # type: ignore[arg-type]
    return found.changes, griffe_paths


def test_a_dataclass_init_takes_the_fields_of_its_dataclass_bases(tmp_path: Path) -> None:
    # griffe's dataclasses extension: inherited fields first, a field declared again keeps its
    # first place. Moving ``limit`` from the subclass to the base changes no call.
    base = {
        "pkg/__init__.py": "",
        "pkg/config.py": (
            "from dataclasses import dataclass\n\n\n@dataclass\nclass Base:\n"
            "    name: str = 'x'\n    limit: int | None = None\n\n\n"
            "@dataclass\nclass Child(Base):\n    path: str | None = None\n"
            "    limit: int | None = None\n    strict: bool = False\n"
        ),
    }
    head = {
        **base,
        "pkg/config.py": base["pkg/config.py"].replace(
            "    limit: int | None = None\n    strict", "    strict"
        ),
    }
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/config.py"])
    assert griffe_paths == set()
    assert changes == []

    # ...while a field removed from the base is still a break of both constructors
    head = {**base, "pkg/config.py": base["pkg/config.py"].replace("    name: str = 'x'\n", "")}
    changes, griffe_paths = _both(tmp_path / "2", base, head, ["pkg/config.py"])
    inits = {"pkg.config.Base.__init__", "pkg.config.Child.__init__"}
    assert inits <= griffe_paths
    assert inits <= {p for c in changes for p in c.public_paths}


def test_a_module_re_exported_through_a_star_import_that_goes_is_removed(tmp_path: Path) -> None:
    base = {
        "pkg/__init__.py": "from .gen import *\nfrom .model import *\n",
        "pkg/gen.py": "from .utils import log\n\n\ndef generate() -> None: ...\n",
        "pkg/model.py": "def fit() -> None: ...\n",
        "pkg/utils/__init__.py": "",
        "pkg/utils/log.py": "def warn() -> None: ...\n",
    }
    head = {**base, "pkg/__init__.py": "from .model import *\n"}
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/__init__.py"])
    assert griffe_paths == {"pkg.generate", "pkg.log"}
    assert {p for c in changes for p in c.public_paths} == griffe_paths


def test_a_dropped_override_is_compared_for_its_call_not_its_return_type(tmp_path: Path) -> None:
    base = {
        "pkg/__init__.py": "from .models import Base, Model\n__all__ = ['Base', 'Model']\n",
        "pkg/models.py": (
            "class Base:\n    def decoder(self):\n        return self\n\n"
            "    def update(self, ids, scores):\n        pass\n\n\n"
            "class Model(Base):\n    def decoder(self) -> 'Model':\n        return self\n\n"
            "    def update(self, *args, **kwargs):\n        pass\n"
        ),
    }
    head = {
        **base,
        "pkg/models.py": base["pkg/models.py"].split("class Model(Base):")[0]
        + "class Model(Base):\n    pass\n",
    }
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/models.py"])
    # griffe compares neither dropped override; prflow keeps the call that no longer works
    assert griffe_paths == set()
    # (one finding, at the base's method the class now inherits)
    assert [(c.symbol, c.kind.value, c.public_paths) for c in changes] == [
        ("Base.update", "changed_signature", ["pkg.Model.update", "pkg.models.Model.update"])
    ]


def test_a_new_override_without_a_return_annotation_is_no_type_change(tmp_path: Path) -> None:
    # The base's ``-> None`` stays where it was; the subclass now declares its own method.
    base = {
        "pkg/__init__.py": "from .nodes import Node, Leaf\n__all__ = ['Node', 'Leaf']\n",
        "pkg/nodes.py": (
            "class Node:\n    def __init__(self, parent: object = None) -> None:\n"
            "        self.parent = parent\n\n\nclass Leaf(Node):\n    pass\n"
        ),
    }
    head = {
        **base,
        "pkg/nodes.py": base["pkg/nodes.py"].replace(
            "class Leaf(Node):\n    pass\n",
            "class Leaf(Node):\n    def __init__(self, *args, **kwargs):\n"
            "        super().__init__(*args, **kwargs)\n",
        ),
    }
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/nodes.py"])
    assert griffe_paths == set()
    assert changes == []


def test_instance_attributes_are_the_ones_griffe_reads_in_init(tmp_path: Path) -> None:
    """griffe counts ``self.<name> = ...`` written in ``__init__`` itself: not in a function
    nested in it, not under another name for ``self``, not from a statement with a subscript
    target. Names it never listed cannot be removed; the one it lists still can."""
    base = {
        "pkg/__init__.py": "",
        "pkg/plot.py": (
            "class Series:\n    def __init__(self, data):\n        cache = {}\n"
            "        self.points = cache['p'] = list(data)\n"
            "        def later():\n            self.figure = None\n"
            "        self.later = later\n"
            "        if data:\n            self.var_x = data[0]\n"
            "\n\nclass Other:\n    def __init__(this):\n        this.size = 1\n"
        ),
    }
    head = {
        **base,
        "pkg/plot.py": (
            "class Series:\n    def __init__(self, data):\n        self.later = None\n"
            "\n\nclass Other:\n    def __init__(this):\n        pass\n"
        ),
    }
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/plot.py"])
    assert griffe_paths == {"pkg.plot.Series.var_x"}
    assert {p for c in changes for p in c.public_paths} == griffe_paths


def test_an_init_attribute_replaces_a_method_written_above_init(tmp_path: Path) -> None:
    """griffe sets members in source order, so ``self.fig = ...`` in ``__init__`` hides a
    ``def fig`` written above it: ``fig`` is an attribute to griffe, and the method's new
    required parameter is no change it reports. prflow reads the class the same way."""
    text = (
        "class Backend:\n    def fig(self):\n        return None\n\n"
        "    def __init__(self):\n        self.fig = object()\n"
    )
    base = {"pkg/__init__.py": "", "pkg/backend.py": text}
    head = {**base, "pkg/backend.py": text.replace("def fig(self):", "def fig(self, size):")}
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/backend.py"])
    assert griffe_paths == set()
    assert changes == []

    # ...while a ``def fig`` written below ``__init__`` is the member, and its call broke
    moved = text.split("    def __init__", maxsplit=1)[0].replace("class Backend:\n", "")
    below = "class Backend:\n    def __init__(self):\n        self.fig = object()\n\n" + moved
    base = {"pkg/__init__.py": "", "pkg/backend.py": below}
    head = {**base, "pkg/backend.py": below.replace("def fig(self):", "def fig(self, size):")}
    changes, griffe_paths = _both(tmp_path / "2", base, head, ["pkg/backend.py"])
    assert griffe_paths == {"pkg.backend.Backend.fig"}
    assert {p for c in changes for p in c.public_paths} == griffe_paths


def test_a_name_left_out_of_a_new_all_but_still_bound_is_not_removed(tmp_path: Path) -> None:
    """A style module that gains ``__all__ = ['DarkStyle']`` keeps its colour constants and
    helper: ``from pkg.dark import RED`` still works, and griffe looks an old public name up
    among all the new module's members. Only a name no longer bound at all is removed."""
    base = {
        "pkg/__init__.py": "",
        "pkg/dark.py": (
            "RED = '#f00'\nBLUE = '#00f'\n\n\ndef make_style(colors):\n    return colors\n\n\n"
            "class DarkStyle:\n    background = RED\n"
        ),
    }
    head = {
        **base,
        "pkg/dark.py": "__all__ = ['DarkStyle']\n\n"
        + base["pkg/dark.py"].replace("BLUE = '#00f'\n", ""),
    }
    changes, griffe_paths = _both(tmp_path, base, head, ["pkg/dark.py"])
    assert griffe_paths == {"pkg.dark.BLUE"}
    assert {p for c in changes for p in c.public_paths} == griffe_paths


def test_an_object_that_became_an_import_of_another_is_not_compared_there(tmp_path: Path) -> None:
    """griffe compares nothing at a path whose object was defined there and is imported there
    from elsewhere at head: a typed stub ``def reset(text)`` that became an import of a
    factory-made ``reset``, a class moved to another module and imported back. Where a public
    alias (``__all__``) reached the moved class at base, griffe compares it through the alias,
    and so does prflow."""
    base = {
        "pkg/__init__.py": "",
        "pkg/console.py": (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    def reset(text: str) -> str: ...\n"
        ),
        "pkg/plot.py": (
            "class Series:\n    def __init__(self):\n        self.var_x = None\n\n"
            "    def points(self, n):\n        return n\n"
        ),
    }
    head = {
        "pkg/__init__.py": "",
        "pkg/colour.py": (
            "def _make(code):\n    return lambda text: code + text\n\n\nreset = _make('0')\n"
        ),
        "pkg/console.py": "from .colour import reset\n",
        "pkg/series.py": (
            "class Series:\n    def __init__(self):\n        pass\n\n"
            "    def points(self):\n        return 0\n"
        ),
        "pkg/plot.py": "from .series import Series\n",
    }
    changed = [*base, "pkg/colour.py", "pkg/series.py"]
    changes, griffe_paths = _both(tmp_path, base, head, changed)
    assert griffe_paths == set()
    assert changes == []

    # the same move, the class public through ``__all__`` of the package at base
    base["pkg/__init__.py"] = "from .plot import Series\n\n__all__ = ['Series']\n"
    head["pkg/__init__.py"] = "from .series import Series\n\n__all__ = ['Series']\n"
    changes, griffe_paths = _both(tmp_path / "2", base, head, changed)
    assert griffe_paths == {"pkg.plot.Series.var_x", "pkg.series.Series.points"}
    assert {"pkg.Series.var_x", "pkg.Series.points"} <= {p for c in changes for p in c.public_paths}
