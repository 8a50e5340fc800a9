"""Shared pytest configuration: each area keeps its fixtures in tests/support/."""

import pytest

pytest_plugins = [
    "tests.support.fixtures_temporal",
    "tests.support.fixtures_store",
    "tests.support.fixtures_llm",
    "tests.support.fixtures_github",
    "tests.support.fixtures_git",
    "tests.support.fixtures_impact",
    "tests.support.pr_setup",
]

TEMPORAL_FIXTURES = frozenset(
    {"temporal_env", "temporal_client", "temporal_address", "temporal_time_skipping_env"}
)
"""Fixtures that start a Temporal server: a test using them must be marked ``temporal``."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``suite_end`` inspect what the whole session did, so they run last.

    Every test that reaches a Temporal server must say so with ``@pytest.mark.temporal``
    (``-m "not temporal"`` then gives a fast, server-free run); an unmarked one fails.
    """
    unmarked = [
        item.nodeid
        for item in items
        if TEMPORAL_FIXTURES & set(getattr(item, "fixturenames", ()))
        and item.get_closest_marker("temporal") is None
    ]
    if unmarked:
        raise pytest.UsageError(
            "tests that start Temporal must be marked temporal: " + ", ".join(unmarked)
        )
    items.sort(key=lambda item: item.get_closest_marker("suite_end") is not None)
