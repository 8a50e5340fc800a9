"""What the report shows beside breaking changes: test layout and breadth."""

from __future__ import annotations

from prflow.analysis.impact_graph import build_impact_graph
from prflow.analysis.test_mapping import TestLayout, expected_test_paths
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import build_import_graph
from prflow.source_tree import MemoryTree


def test_expected_tests_follow_tests_area_folders() -> None:
    layout = TestLayout(
        ["app/billing/invoice.py", "tests/billing/test_tax.py", "tests/users/test_login.py"]
    )

    assert expected_test_paths("app/billing/invoice.py", layout) == [
        "tests/billing/test_invoice.py"
    ]
    # A package without an area yet gets a new area, not tests/test_<name>.py.
    assert expected_test_paths("app/orders/cart.py", layout) == ["tests/orders/test_cart.py"]


def test_expected_tests_mirror_the_package_path() -> None:
    layout = TestLayout(["src/shop/core/cart.py", "tests/shop/core/test_price.py"])

    assert expected_test_paths("src/shop/core/cart.py", layout) == ["tests/shop/core/test_cart.py"]


def test_breadth_counts_direct_importers_and_keeps_the_transitive_set_apart() -> None:
    tree = MemoryTree(
        {
            "core.py": "X = 1\n",
            "a.py": "import core\n",
            "b.py": "import a\n",
            "c.py": "import b\n",
        }
    )
    changed = [
        ChangedFile(path="core.py", status=FileStatus.modified, category=FileCategory.source)
    ]

    graph = build_impact_graph(changed, build_import_graph(tree))

    assert graph.direct_importers == ["a.py"]
    assert graph.indirectly_affected == ["a.py", "b.py", "c.py"]
