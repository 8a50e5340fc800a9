"""Settings come from a TOML file and the environment, the environment winning."""

from __future__ import annotations

from pathlib import Path

import pytest

from prflow.config import config_file, load_settings

TOML = """
database_url = "postgresql+psycopg://prflow@db/prflow"

[temporal]
task_queue = "from-toml"

[models]
mid = "claude-opus-5-5"

[models.prices."my-model"]
input = 1.0
output = 2.0
cache_write = 1.25
cache_read = 0.1

[budget]
usd = 0.5
"""


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "DATABASE_URL", "PRFLOW_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "settings.toml"
    path.write_text(TOML)
    monkeypatch.setenv("PRFLOW_CONFIG", str(path))
    return path


def test_toml_file_is_read(clean_env: Path) -> None:
    settings = load_settings()
    assert config_file() == clean_env
    assert settings.temporal.task_queue == "from-toml"
    assert settings.models.mid == "claude-opus-5-5"
    assert settings.models.prices["my-model"].output == 2.0
    assert settings.models.prices["claude-haiku-5-5"].input == 0.10, "defaults kept"
    assert settings.budget.usd == 0.5
    assert settings.resolved_database_url() == "postgresql+psycopg://prflow@db/prflow"


def test_environment_overrides_the_file(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRFLOW_TEMPORAL__TASK_QUEUE", "from-env")
    monkeypatch.setenv("PRFLOW_BUDGET__USD", "3")
    monkeypatch.setenv("DATABASE_URL", "sqlite:////tmp/x.db")
    monkeypatch.setenv("TEMPORAL_ADDRESS", "temporal.internal:7233")
    settings = load_settings()
    assert settings.temporal.task_queue == "from-env"
    assert settings.budget.usd == 3
    assert settings.resolved_database_url() == "sqlite:////tmp/x.db"
    assert settings.temporal.address == "temporal.internal:7233"


def test_defaults_without_file_use_a_sqlite_ledger_in_the_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("PRFLOW_CONFIG", "DATABASE_URL", "PRFLOW_DATABASE_URL", "TEMPORAL_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PRFLOW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    settings = load_settings()
    assert settings.temporal.address is None
    assert settings.resolved_database_url() == f"sqlite:///{tmp_path / 'data' / 'prflow.db'}"
