"""pytest fixtures for the llm area: the scripted Messages API server and the worker env."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from prflow.config import cached_settings
from tests.support.scripted_anthropic import ScriptedAnthropic

TEST_API_KEY = "test-key"


@pytest.fixture
def scripted_anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedAnthropic]:
    """A started scripted server that the SDK in this process (and its children) will use.

    Give it turns with ``scripted_anthropic.script([...])``.
    """
    with ScriptedAnthropic() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
        yield server


@pytest.fixture
def llm_db_url(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Point the worker settings at this test's own SQLite file (ledger and blobs).

    The activity reads settings once per process, so the cache is cleared on
    the way in and out; tests may set more ``PRFLOW_*`` variables and clear it again.
    """
    monkeypatch.setenv("PRFLOW_DATABASE_URL", sqlite_url)
    cached_settings.cache_clear()
    yield sqlite_url
    cached_settings.cache_clear()
