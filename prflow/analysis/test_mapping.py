"""Which tests belong to a source file: by naming convention and by import.

Naming conventions predict where a test *should* be (``expected_test_paths``);
``find_related_tests`` reports the tests that *are* there: any test file in
the tree named after the source (wherever it lives), and any test file that
imports the source, directly or through a package ``__init__`` / barrel
``index`` that re-exports what it uses.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from prflow.analysis.categories import is_test_file
from prflow.imports import ImportGraph
from prflow.imports.build import is_skipped
from prflow.imports.python_imports import is_python_file
from prflow.js_files import is_js_file
from prflow.source_tree import SourceTree

__all__ = [
    "TestLayout",
    "expected_test_paths",
    "find_related_tests",
    "is_test_file",
    "tested_module_name",
]

# Module names that say nothing about their content: the directory names the module.
_ANONYMOUS_STEMS = frozenset({"__init__", "index"})
_JS_TEST_MARKERS = (".test", ".spec")


def _split(path: str) -> tuple[str, str, str]:
    """Directory, stem and suffix; ``.d.ts`` counts as one suffix."""
    directory, name = posixpath.split(path)
    if name.endswith(".d.ts"):
        return directory, name[: -len(".d.ts")], ".d.ts"
    stem, suffix = posixpath.splitext(name)
    return directory, stem, suffix


def _is_testable_source(path: str) -> bool:
    if is_test_file(path) or path.endswith((".pyi", ".d.ts")):
        return False
    return is_python_file(path) or is_js_file(path)


class TestLayout:
    """Where a repository keeps its tests, learnt from the test files it already has.

    Test directories (``tests/``, ``test/``) and the source directories they
    mirror let :func:`expected_test_paths` suggest ``tests/analysis/test_x.py``
    for ``prflow/analysis/x.py`` when that is how the repo is organised, instead
    of a generic ``tests/test_x.py``.
    """

    __test__ = False  # not a pytest class, despite the name

    def __init__(self, paths: Iterable[str]) -> None:
        tests = [p for p in paths if is_test_file(p) and not is_skipped(p)]
        self.python_dirs = sorted(
            {
                posixpath.dirname(p)
                for p in tests
                if is_python_file(p) and _named_test(p) and _under_test_root(p)
            }
        )
        roots = {d.split("/")[0] for d in self.python_dirs}
        self.test_root = "tests" if "tests" in roots or not roots else sorted(roots)[0]
        self.by_area = bool(self.python_dirs) and self.test_root not in self.python_dirs
        js = [p for p in tests if is_js_file(p)]
        self.js_tests_dirs = any("/__tests__/" in f"/{p}" for p in js)
        self.js_spec = sum(".spec." in p for p in js) > sum(".test." in p for p in js)

    def python_candidates(self, directory: str, stem: str) -> list[str]:
        """Existing test directories that mirror ``directory`` (deepest match first)."""
        parts = [p for p in directory.split("/") if p and p != "src"]
        scored: list[tuple[int, str]] = []
        for test_dir in self.python_dirs:
            if test_dir == directory:
                scored.append((len(parts) + 1, test_dir))
                continue
            inner = [p for p in test_dir.split("/") if p not in _TEST_ROOTS]
            if not inner or len(inner) == len(test_dir.split("/")):
                continue
            # tests/<area>/ mirrors a source directory named <area> anywhere in the path,
            # tests/<pkg>/<sub>/ mirrors the package path.
            if inner == parts[-len(inner) :] or (len(inner) == 1 and inner[0] in parts):
                scored.append((len(inner), test_dir))
        scored.sort(key=lambda item: (-item[0], item[1]))
        found = [posixpath.join(test_dir, f"test_{stem}.py") for _, test_dir in scored]
        if not found and self.by_area and parts:
            # Tests live in tests/<area>/ only: a new area named after the source's package.
            found = [posixpath.join(self.test_root, parts[-1], f"test_{stem}.py")]
        return found


_TEST_ROOTS = frozenset({"tests", "test", "testing"})


def _under_test_root(path: str) -> bool:
    return path.split("/", 1)[0] in _TEST_ROOTS


def _named_test(path: str) -> bool:
    name = posixpath.basename(path)
    return name.startswith("test_") or name.endswith("_test.py")


def expected_test_paths(source: str, layout: TestLayout | None = None) -> list[str]:
    """Where the tests of ``source`` should be: the repo's own layout first, then conventions.

    Python: ``tests/test_x.py``, ``test_x.py`` and ``x_test.py`` beside the module,
    and ``tests/<package path>/test_x.py`` (``src/`` dropped). JS/TS:
    ``x.test.<ext>``, ``x.spec.<ext>``, ``__tests__/x.test.<ext>``, ``__tests__/x.<ext>``.
    A package ``__init__.py`` is named after its directory. Not a testable
    source (test, stub, declaration, non-code file): no expectations.
    """
    if not _is_testable_source(source):
        return []
    directory, stem, suffix = _split(source)
    if is_python_file(source):
        if stem == "__init__":
            if not directory:
                return []
            directory, stem = posixpath.split(directory)
        learnt = layout.python_candidates(directory, stem) if layout is not None else []
        if learnt:
            return learnt[:3]
        package_path = directory.removeprefix("src/") if directory != "src" else ""
        candidates = [
            f"tests/test_{stem}.py",
            posixpath.join(directory, f"test_{stem}.py"),
            posixpath.join(directory, f"{stem}_test.py"),
        ]
        if package_path:
            candidates.append(posixpath.join("tests", package_path, f"test_{stem}.py"))
    else:
        candidates = [
            posixpath.join(directory, f"{stem}.test{suffix}"),
            posixpath.join(directory, f"{stem}.spec{suffix}"),
            posixpath.join(directory, "__tests__", f"{stem}.test{suffix}"),
            posixpath.join(directory, "__tests__", f"{stem}{suffix}"),
        ]
        if layout is not None:
            marker = "spec" if layout.js_spec else "test"
            beside = posixpath.join(directory, f"{stem}.{marker}{suffix}")
            nested = posixpath.join(directory, "__tests__", f"{stem}.{marker}{suffix}")
            candidates = [nested, beside] if layout.js_tests_dirs else [beside]
    return list(dict.fromkeys(candidates))


def tested_module_name(test_path: str) -> str | None:
    """The module name a test file is named after (``test_x.py`` -> ``x``), if any."""
    directory, stem, _ = _split(test_path)
    if is_python_file(test_path):
        if stem.startswith("test_") and len(stem) > len("test_"):
            return stem[len("test_") :]
        if stem.endswith("_test") and len(stem) > len("_test"):
            return stem[: -len("_test")]
        return None
    if is_js_file(test_path):
        for marker in _JS_TEST_MARKERS:
            if stem.endswith(marker) and len(stem) > len(marker):
                return stem[: -len(marker)]
        if posixpath.basename(directory) == "__tests__":
            return stem
    return None


def _source_subjects(source: str) -> set[str]:
    """Names a test of ``source`` could be named after."""
    directory, stem, _ = _split(source)
    subjects = {stem.lower()}
    if stem in _ANONYMOUS_STEMS:
        subjects = {posixpath.basename(directory).lower()} if directory else set()
    return subjects


@dataclass(frozen=True)
class TestFiles:
    """The tree's test files with the module each is named after: read once, asked per source."""

    __test__ = False  # not a pytest test class

    files: tuple[tuple[str, str | None, bool], ...]
    """(path, tested module name lowercased or None, is a Python file)."""
    existing: frozenset[str]

    @classmethod
    def of(cls, tree: SourceTree) -> TestFiles:
        paths = tree.paths()
        files = []
        for path in paths:
            if is_skipped(path) or not is_test_file(path):
                continue
            subject = tested_module_name(path)
            files.append(
                (path, subject.lower() if subject is not None else None, is_python_file(path))
            )
        return cls(tuple(files), frozenset(paths))


def find_related_tests(
    source: str, tree: SourceTree, graph: ImportGraph, tests: TestFiles | None = None
) -> list[str]:
    """Existing test files of ``source`` at this tree: named after it, or importing it.

    Name matches are by basename anywhere in the tree (same language family), plus
    any conventional path that exists (``index.test.ts`` beside ``index.ts``).
    Import matches are test files that import ``source`` directly or get its
    names through a re-exporting package/barrel. Sorted, without ``source``.
    ``tests`` is :meth:`TestFiles.of` the tree, when asking about many sources.
    """
    if not (is_python_file(source) or is_js_file(source)):
        return []
    tests = tests if tests is not None else TestFiles.of(tree)
    subjects = _source_subjects(source)
    python = is_python_file(source)
    related = {path for path in expected_test_paths(source) if path in tests.existing}
    for path, subject, is_python in tests.files:
        if is_python == python and subject is not None and subject in subjects:
            related.add(path)
    related.update(
        importer for importer in graph.importers_through_reexports(source) if is_test_file(importer)
    )
    related.discard(source)
    return sorted(related)
