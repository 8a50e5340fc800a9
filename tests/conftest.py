"""Shared pytest configuration: each area keeps its fixtures in tests/support/."""

import pytest

pytest_plugins = [
    "tests.support.fixtures_temporal",
    "tests.support.fixtures_store",
    "tests.support.fixtures_llm",
    "tests.support.fixtures_github",
    "tests.support.fixtures_git",
    "tests.support.fixtures_impact",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``suite_end`` inspect what the whole session did, so they run last."""
    items.sort(key=lambda item: item.get_closest_marker("suite_end") is not None)
