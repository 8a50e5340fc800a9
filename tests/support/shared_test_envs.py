"""One built test environment per test session, shared by the tests' private caches.

prflow builds a project's test environment (a virtualenv with its test runner, or
``node_modules``) once per dependency spec under ``<cache>/test-envs`` and mounts it
read-only afterwards. Each test has a private cache directory, so without this every
test that runs a suite would pay the 10-30 s build again. A test's cache links its
``test-envs`` to the session's folder instead: prflow still builds each spec once,
under its own lock, the first time a test needs it. Tests about building or counting
environments are marked ``own_test_envs`` (or give a worker a cache of its own).
"""

from __future__ import annotations

import os
from pathlib import Path

SESSION_TEST_ENVS = "_PRFLOW_TESTS_SHARED_TEST_ENVS"
"""Set per test session (per pytest-xdist worker) by ``tests/conftest.py``."""


def share_test_envs(cache: Path) -> None:
    """Point ``cache``'s ``test-envs`` at the session's shared folder, if there is one."""
    shared = os.environ.get(SESSION_TEST_ENVS)
    link = cache / "test-envs"
    if not shared or link.exists() or link.is_symlink():
        return
    cache.mkdir(parents=True, exist_ok=True)
    link.symlink_to(shared, target_is_directory=True)
