"""Shared pytest configuration: each area keeps its fixtures in tests/support/."""

import os
import shutil
import tempfile

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

_OWN_DATA_DIR = "_PRFLOW_TESTS_OWN_DATA_DIR"


def pytest_configure(config: pytest.Config) -> None:
    """The session's prflow data directory is its own, never the user's.

    Tests that name no database fall back to the default SQLite file under the
    data directory; pointing it at a fresh directory keeps a developer's ledger
    (or one migrated by another checkout) out of the results, and theirs out of ours.
    """
    if "PRFLOW_DATA_DIR" not in os.environ:
        os.environ["PRFLOW_DATA_DIR"] = tempfile.mkdtemp(prefix="prflow-tests-data-")
        os.environ[_OWN_DATA_DIR] = os.environ["PRFLOW_DATA_DIR"]


def pytest_unconfigure(config: pytest.Config) -> None:
    own = os.environ.pop(_OWN_DATA_DIR, None)
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)
        os.environ.pop("PRFLOW_DATA_DIR", None)


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
