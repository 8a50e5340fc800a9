"""Rules that keep a bundle to the files a directive is about: the knee cut, names written as
code only, methods named with their class, file names said as words, stubs below modules.

The end-to-end tests index a small real package on disk with the bundled embedding model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from prflow.analysis.parse_cache import MemoryParseCache
from prflow.refactor_index.build import IndexCaches, build_index
from prflow.refactor_index.models import FileRecord, SymbolRecord
from prflow.refactor_index.retrieval import (
    RetrievalSettings,
    cut,
    mentioned_names,
    named_scores,
    stem_scores,
)
from prflow.refactor_index.search import retrieve
from prflow.refactor_index.vectors import MemoryVectorCache
from prflow.source_tree import DirectoryTree

PACKAGE = {
    "pkg/compiler.py": '''"""Turns template nodes into Python source."""


class CodeGenerator:
    def visit_block(self, node, frame):
        """Write a block; required blocks must be overridden in a child template."""
        if node.required and node.body:
            raise TemplateSyntaxError("required block must be empty")

    def visit_extends(self, node, frame):
        """Write the parent template lookup."""
        self.write("parent_template = environment.get_template(")
''',
    "pkg/runtime.py": '''"""Runtime context of a rendering template."""


class Context:
    def resolve(self, key):
        """Look a name up in the template context, then in the parent."""
        return self.parent.get(key)

    def get(self, key, default=None):
        return self.vars.get(key, default)


def new_context(environment, template_name, blocks):
    """A context for a template render with its blocks."""
    return Context(environment, template_name, blocks)
''',
    "pkg/structures.py": '''"""Dictionaries with conversion on lookup."""


class TypeConversionDict(dict):
    def get(self, key, default=None, type=None):
        """The value for key, converted with type; a ValueError gives the default."""
        try:
            value = self[key]
        except KeyError:
            return default
        if type is not None:
            try:
                value = type(value)
            except ValueError:
                value = default
        return value


class Headers:
    def get(self, key, default=None):
        """The first header named key."""
        return default
''',
    "pkg/structures.pyi": """class TypeConversionDict(dict):
    def get(self, key, default=None, type=None): ...

class Headers:
    def get(self, key, default=None): ...
""",
    "pkg/cache.py": '''"""A cache of parsed templates."""


class Cache:
    def get(self, key):
        """A cached template or None."""
        return self.mapping.get(key)
''',
}


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for path, text in PACKAGE.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def bundle_of(root: Path, query: str, settings: RetrievalSettings | None = None) -> list[str]:
    caches = IndexCaches(MemoryParseCache(), MemoryVectorCache())
    index = build_index(DirectoryTree(root), caches)
    return retrieve(query, index, caches, settings).paths()


def record(*symbols: tuple[str, Literal["class", "function", "method"]]) -> FileRecord:
    return FileRecord(
        language="python",
        terms={},
        symbols=[
            SymbolRecord(name=name, kind=kind, line=1, end_line=2, signature=name)
            for name, kind in symbols
        ],
    )


def test_the_cut_stops_at_the_first_clear_drop() -> None:
    scores = {"a": 1.0, "b": 0.95, "c": 0.9, "d": 0.78, "e": 0.76}
    assert cut(scores, max_files=8, min_ratio=0.75, knee_ratio=0.1) == ["a", "b", "c"]
    # Without a knee only the floor and the size cut: the old behaviour.
    assert cut(scores, max_files=8, min_ratio=0.75) == ["a", "b", "c", "d", "e"]
    assert cut(scores, max_files=2, min_ratio=0.75, knee_ratio=0.1) == ["a", "b"]
    assert cut({"a": 2.0, "b": 1.5}, max_files=8, min_ratio=0.5, knee_ratio=0.1) == ["a"]


def test_acronyms_and_quoted_prose_are_not_code_names() -> None:
    names = mentioned_names(
        "Debugger pin works when the URL has IPv6, MSYS2 or DoS in it; parsing "
        "`multipart/x-www-form-urlencoded` and ``{% trans %}`` blocks; ``SSLEOFError``"
    )
    assert names == {"ssleoferror"}


def test_a_dotted_method_mention_names_that_class_not_every_method_of_the_name() -> None:
    records = {
        "structures.py": record(
            ("TypeConversionDict", "class"), ("TypeConversionDict.get", "method")
        ),
        "cache.py": record(("Cache", "class"), ("Cache.get", "method")),
        "cli.py": record(("group", "function")),
    }
    assert named_scores("Fix TypeConversionDict.get() on TypeError", records) == {
        "structures.py": 1.5
    }
    # A module-qualified function keeps matching by its last part.
    assert named_scores("type hints of ``click.group()``", records) == {"cli.py": 1.0}


def test_a_file_name_said_as_words_scores() -> None:
    paths = ["pkg/compiler.py", "pkg/shell_completion.py", "pkg/filters.py", "pkg/io.py"]
    assert stem_scores("Fix compiler error in shell completion of a filter and io", paths) == {
        "pkg/compiler.py": 1.0,
        "pkg/shell_completion.py": 1.0,
        "pkg/filters.py": 1.0,
    }


def test_a_clear_winner_is_a_bundle_of_one(package: Path) -> None:
    paths = bundle_of(
        package, "Fix compiler error when checking if required blocks in parent templates"
    )
    assert paths == ["pkg/compiler.py"]


def test_a_method_named_with_its_class_retrieves_the_module_not_its_stub(package: Path) -> None:
    query = "Fix handling of TypeError in TypeConversionDict.get()"
    assert bundle_of(package, query) == ["pkg/structures.py"]
    # The stub stays out on its own score, not only by the knee.
    assert bundle_of(package, query, RetrievalSettings(knee_ratio=1.0)) == ["pkg/structures.py"]


def test_without_a_knee_the_bundle_keeps_every_file_over_the_floor(package: Path) -> None:
    query = "Fix compiler error when checking if required blocks in parent templates"
    wide = bundle_of(package, query, RetrievalSettings(min_ratio=0.0, knee_ratio=1.0))
    assert wide[0] == "pkg/compiler.py"
    assert len(wide) > 1
