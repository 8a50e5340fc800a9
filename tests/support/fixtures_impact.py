"""pytest fixtures for whole-workflow tests: an isolated prflow home and the sample repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from prflow.config import cached_settings
from tests.support.sample_repos import build_sample_repo
from tests.support.shared_test_envs import share_test_envs


@pytest.fixture
def prflow_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """Fresh data dir, cache dir and SQLite ledger for this test, in this process's env.

    Built test environments come from the session's shared folder unless the test is
    marked ``own_test_envs`` (see :mod:`tests.support.shared_test_envs`).
    """
    home = tmp_path / "prflow-home"
    if request.node.get_closest_marker("own_test_envs") is None:
        share_test_envs(home / "cache")
    monkeypatch.setenv("PRFLOW_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("PRFLOW_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("PRFLOW_DATABASE_URL", f"sqlite:///{home / 'prflow.db'}")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    cached_settings.cache_clear()
    yield home
    cached_settings.cache_clear()


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    return build_sample_repo(tmp_path / "sample")
