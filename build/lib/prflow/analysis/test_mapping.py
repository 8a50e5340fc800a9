"""Which tests belong to a source file: by naming convention and by import.

Naming conventions predict where a test *should* be (``expected_test_paths``);
``find_related_tests`` reports the tests that *are* there: any test file in
the tree named after the source (wherever it lives), and any test file that
imports the source, directly or through a package ``__init__`` / barrel
``index`` that re-exports what it uses.
"""

from __future__ import annotations

import posixpath

from prflow.analysis.categories import is_test_file
from prflow.imports import ImportGraph
from prflow.imports.build import is_skipped
from prflow.imports.js_imports import is_js_file
from prflow.imports.python_imports import is_python_file
from prflow.source_tree import SourceTree

__all__ = ["expected_test_paths", "find_related_tests", "is_test_file", "tested_module_name"]

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


def expected_test_paths(source: str) -> list[str]:
    """Where the usual conventions would put the tests of ``source``, most common first.

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


def _same_language(source: str, test: str) -> bool:
    """Python tests for Python modules, JS/TS tests for JS/TS modules."""
    return is_python_file(source) == is_python_file(test)


def find_related_tests(source: str, tree: SourceTree, graph: ImportGraph) -> list[str]:
    """Existing test files of ``source`` at this tree: named after it, or importing it.

    Name matches are by basename anywhere in the tree (same language family), plus
    any conventional path that exists (``index.test.ts`` beside ``index.ts``).
    Import matches are test files that import ``source`` directly or get its
    names through a re-exporting package/barrel. Sorted, without ``source``.
    """
    if not (is_python_file(source) or is_js_file(source)):
        return []
    paths = tree.paths()
    existing = set(paths)
    subjects = _source_subjects(source)
    related = {path for path in expected_test_paths(source) if path in existing}
    for path in paths:
        if is_skipped(path) or not is_test_file(path) or not _same_language(source, path):
            continue
        subject = tested_module_name(path)
        if subject is not None and subject.lower() in subjects:
            related.add(path)
    related.update(
        importer for importer in graph.importers_through_reexports(source) if is_test_file(importer)
    )
    related.discard(source)
    return sorted(related)
