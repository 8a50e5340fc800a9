"""Shared pytest configuration: each area keeps its fixtures in tests/support/."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.shared_test_envs import SESSION_TEST_ENVS

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
_OWN_TEST_ENVS = pytest.StashKey[str]()
"""The shared test-environment folder this session made (and removes at its end)."""


def pytest_configure(config: pytest.Config) -> None:
    """The session's prflow data directory is its own, never the user's.

    Tests that name no database fall back to the default SQLite file under the
    data directory; pointing it at a fresh directory keeps a developer's ledger
    (or one migrated by another checkout) out of the results, and theirs out of ours.
    """
    inherited_own = os.environ.get(_OWN_DATA_DIR) == os.environ.get("PRFLOW_DATA_DIR")
    xdist_worker = "PYTEST_XDIST_WORKER" in os.environ
    if "PRFLOW_DATA_DIR" not in os.environ or (xdist_worker and inherited_own):
        # Under pytest-xdist each worker process gets its own, like a separate session.
        os.environ["PRFLOW_DATA_DIR"] = tempfile.mkdtemp(prefix="prflow-tests-data-")
        os.environ[_OWN_DATA_DIR] = os.environ["PRFLOW_DATA_DIR"]
    if SESSION_TEST_ENVS not in os.environ or xdist_worker:
        os.environ[SESSION_TEST_ENVS] = tempfile.mkdtemp(prefix="prflow-tests-envs-")
        config.stash[_OWN_TEST_ENVS] = os.environ[SESSION_TEST_ENVS]


def pytest_unconfigure(config: pytest.Config) -> None:
    envs = config.stash.get(_OWN_TEST_ENVS, None)
    if envs is not None:
        os.environ.pop(SESSION_TEST_ENVS, None)
        shutil.rmtree(envs, ignore_errors=True)
    own = os.environ.pop(_OWN_DATA_DIR, None)
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)
        os.environ.pop("PRFLOW_DATA_DIR", None)


SERIAL_DIR = Path(__file__).parent / "durability"
"""Kill-and-resume tests judge costs against heartbeat timeouts: they run alone (``serial``)."""

TEMPORAL_FIXTURES = frozenset(
    {"temporal_env", "temporal_client", "temporal_address", "temporal_time_skipping_env"}
)
"""Fixtures that start a Temporal server: a test using them must be marked ``temporal``."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that reaches a Temporal server must say so with ``@pytest.mark.temporal``
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
    for item in items:
        if SERIAL_DIR in item.path.parents:
            item.add_marker(pytest.mark.serial)
