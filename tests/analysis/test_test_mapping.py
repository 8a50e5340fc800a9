"""Finding the tests of a source file, and the coverage gaps of a change."""

from __future__ import annotations

from prflow.analysis.test_gaps import find_test_gaps
from prflow.analysis.test_mapping import expected_test_paths, find_related_tests, is_test_file
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import build_import_graph
from prflow.source_tree import MemoryTree

REPO = {
    "src/shop/__init__.py": "from .core import checkout\nfrom .pricing import price\n",
    "src/shop/core.py": "def checkout(): ...\n",
    "src/shop/pricing.py": "def price(): ...\n",
    "src/shop/orphan.py": "X = 1\n",
    "src/shop/lonely.py": "Y = 2\n",
    "tests/test_core.py": "def test_it(): ...\n",  # named after core.py
    # Tests pricing.py only through the package's re-export of `price`.
    "tests/integration/test_flow.py": "from shop import price\n",
    "tests/test_orphan.py": "from shop.orphan import X\n",
    "web/src/Button.tsx": "export const Button = () => null\n",
    "web/src/Card.tsx": "export const Card = () => null\n",
    "web/src/core.ts": "export const core = 1\n",
    "web/src/Card.spec.tsx": "import { Card } from './Card'\n",
    "web/src/__tests__/Button.tsx": "test('renders', () => {})\n",
    "web/src/index.ts": "export * from './Button'\nexport { Card } from './Card'\n",
    # Imports only Button through the barrel: it is a Button test, not a Card test.
    "web/tests/app.test.ts": "import { Button } from '../src'\n",
    "README.md": "# shop\n",
}


def test_is_test_file_knows_python_and_js_conventions() -> None:
    for path in [
        "tests/test_core.py",
        "pkg/core_test.py",
        "web/src/Card.spec.tsx",
        "web/src/x.test.mjs",
        "web/src/__tests__/Button.tsx",
        "conftest.py",
    ]:
        assert is_test_file(path), path
    for path in ["src/shop/core.py", "web/src/Card.tsx", "src/contest.py", "README.md"]:
        assert not is_test_file(path), path


def test_expected_paths_follow_naming_conventions() -> None:
    assert expected_test_paths("src/shop/core.py") == [
        "tests/test_core.py",
        "src/shop/test_core.py",
        "src/shop/core_test.py",
        "tests/shop/test_core.py",
    ]
    assert expected_test_paths("shop/__init__.py") == [
        "tests/test_shop.py",
        "test_shop.py",
        "shop_test.py",
    ]
    assert expected_test_paths("web/src/Button.tsx") == [
        "web/src/Button.test.tsx",
        "web/src/Button.spec.tsx",
        "web/src/__tests__/Button.test.tsx",
        "web/src/__tests__/Button.tsx",
    ]
    for not_testable in ["tests/test_core.py", "src/types.d.ts", "stubs/x.pyi", "README.md"]:
        assert expected_test_paths(not_testable) == [], not_testable


def test_related_tests_by_name_anywhere_and_by_import_through_reexports() -> None:
    tree = MemoryTree(REPO)
    graph = build_import_graph(tree)
    related = {path: find_related_tests(path, tree, graph) for path in REPO}
    assert related["src/shop/core.py"] == ["tests/test_core.py"]
    assert related["src/shop/pricing.py"] == ["tests/integration/test_flow.py"]
    assert related["src/shop/lonely.py"] == []
    assert related["web/src/Button.tsx"] == [
        "web/src/__tests__/Button.tsx",
        "web/tests/app.test.ts",
    ]
    assert related["web/src/Card.tsx"] == ["web/src/Card.spec.tsx"]
    # A Python test named after `core` is not a test of the TypeScript `core.ts`.
    assert related["web/src/core.ts"] == []
    assert related["README.md"] == []


def _changed(path: str, status: FileStatus = FileStatus.modified) -> ChangedFile:
    category = FileCategory.test if is_test_file(path) else FileCategory.source
    if path.endswith(".md"):
        category = FileCategory.doc
    return ChangedFile(path=path, status=status, category=category)


def test_gaps_report_each_changed_source_and_the_coverage_ratio() -> None:
    tree = MemoryTree(REPO)
    changed = [
        _changed("src/shop/core.py"),
        _changed("src/shop/pricing.py"),
        _changed("tests/integration/test_flow.py"),
        _changed("src/shop/orphan.py", FileStatus.added),
        _changed("tests/test_orphan.py", FileStatus.added),
        _changed("src/shop/lonely.py"),
        _changed("src/shop/gone.py", FileStatus.deleted),
        _changed("web/src/Card.tsx"),
        _changed("README.md"),
    ]
    gaps, coverage = find_test_gaps(changed, tree, build_import_graph(tree))
    by_source = {gap.source_file: gap for gap in gaps}
    assert sorted(by_source) == [
        "src/shop/core.py",
        "src/shop/lonely.py",
        "src/shop/orphan.py",
        "src/shop/pricing.py",
        "web/src/Card.tsx",
    ]
    assert by_source["src/shop/core.py"].existing_tests == ["tests/test_core.py"]
    assert not by_source["src/shop/core.py"].tests_updated
    assert by_source["src/shop/pricing.py"].tests_updated
    assert by_source["src/shop/orphan.py"].tests_updated  # its new test was added with it
    assert not by_source["src/shop/lonely.py"].test_exists
    assert not by_source["web/src/Card.tsx"].tests_updated
    assert (coverage.changed_source_files, coverage.with_test_updates) == (5, 2)
    assert coverage.ratio == 0.4


def test_repo_without_tests_has_zero_coverage_and_no_source_change_has_full() -> None:
    tree = MemoryTree(
        {"app/main.py": "from app import util\n", "app/util.py": "", "app/__init__.py": ""}
    )
    graph = build_import_graph(tree)
    gaps, coverage = find_test_gaps([_changed("app/main.py"), _changed("app/util.py")], tree, graph)
    assert [gap.existing_tests for gap in gaps] == [[], []]
    assert gaps[0].expected_tests[0] == "tests/test_main.py"
    assert coverage.ratio == 0.0
    _, untouched = find_test_gaps([_changed("README.md")], tree, graph)
    assert untouched.changed_source_files == 0
    assert untouched.ratio == 1.0


def test_test_folders_inside_a_python_package_hold_api_not_tests() -> None:
    """``django/test/client.py`` and ``numpy/testing/utils.py`` are shipped API: a change to
    them is a source change; test-named files and ``tests/`` folders stay tests anywhere."""
    for path in [
        "django/test/client.py",
        "numpy/testing/utils.py",
        "docs_src/testing/app01/main.py",
    ]:
        assert not is_test_file(path), path
    for path in [
        "testing/test_capture.py",
        "testing/helpers.py",  # a repository whose test root is testing/ (pytest's own)
        "test/support.py",
        "sympy/testing/tests/test_pytest.py",
        "numpy/core/tests/_locales.py",
        "packages/ui/test/render.js",
        "django/test/test_utils.py",
    ]:
        assert is_test_file(path), path
