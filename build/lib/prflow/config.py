"""Settings for every prflow process, from the environment and an optional TOML file.

Environment variables use the ``PRFLOW_`` prefix and ``__`` for nesting
(``PRFLOW_BUDGET__USD=5``). ``TEMPORAL_ADDRESS`` and ``DATABASE_URL`` are also
honoured unprefixed because operators already export them. The TOML file is
``$PRFLOW_CONFIG`` if set, else ``./prflow.toml``, else
``<user config dir>/prflow/config.toml``. Secrets (API keys, GitHub tokens) are
never part of these settings: activities read them from the worker's
environment so they cannot leak into workflow history.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

ModelTier = Literal["budget", "mid", "premium"]


def data_dir() -> Path:
    """Directory for durable local state (SQLite ledger, dev-server history)."""
    return Path(os.environ.get("PRFLOW_DATA_DIR") or platformdirs.user_data_dir("prflow"))


def cache_dir() -> Path:
    """Directory for rebuildable state (bare mirrors, commit snapshots)."""
    return Path(os.environ.get("PRFLOW_CACHE_DIR") or platformdirs.user_cache_dir("prflow"))


class TemporalSettings(BaseModel):
    """Where the Temporal service is and which task queues the workers poll."""

    address: str | None = Field(
        default=None,
        description="host:port of a Temporal frontend; unset means start the embedded dev server",
    )
    namespace: str = "default"
    task_queue: str = "prflow"
    llm_task_queue: str = "prflow-llm"
    github_task_queue: str = "prflow-github"
    embedded_port: int = 7233
    embedded_ui_port: int = 8233
    llm_max_activities_per_second: float | None = Field(
        default=None, description="Rate limit of the LLM task queue across all workers"
    )


class PriceRow(BaseModel):
    """USD per million tokens for one model; an optional higher band for long prompts."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    long_prompt_threshold: int | None = Field(
        default=None, description="Prompt tokens (input + cache) above which the long rates apply"
    )
    long_input: float | None = None
    long_output: float | None = None
    long_cache_write: float | None = None
    long_cache_read: float | None = None


def _default_prices() -> dict[str, PriceRow]:
    # Public list prices, November 2026 (platform.claude.com pricing page).
    return {
        "claude-haiku-5-5": PriceRow(
            input=0.10,
            output=0.50,
            cache_write=0.125,
            cache_read=0.01,
            long_prompt_threshold=100_000,
            long_input=0.50,
            long_output=2.50,
            long_cache_write=0.625,
            long_cache_read=0.05,
        ),
        "claude-sonnet-5-5": PriceRow(input=2.0, output=10.0, cache_write=2.50, cache_read=0.10),
        "claude-opus-5-5": PriceRow(input=4.0, output=20.0, cache_write=5.0, cache_read=0.20),
    }


class ModelSettings(BaseModel):
    """Model tiers mapped to model ids, and the price table that turns usage into USD."""

    budget: str = "claude-haiku-5-5"
    mid: str = "claude-sonnet-5-5"
    premium: str = "claude-opus-5-5"
    prices: dict[str, PriceRow] = Field(default_factory=_default_prices)
    request_timeout_seconds: float = 120.0
    max_attempts: int = 5

    @field_validator("prices", mode="after")
    @classmethod
    def _keep_default_prices(cls, prices: dict[str, PriceRow]) -> dict[str, PriceRow]:
        """A configured row adds to (or replaces one of) the defaults instead of all of them."""
        return {**_default_prices(), **prices}

    def model_for(self, tier: ModelTier) -> str:
        return str(getattr(self, tier))


class BudgetSettings(BaseModel):
    """Default per-run caps; each workflow splits them by phase."""

    usd: float = 2.0
    tokens: int = 2_000_000
    wall_clock_seconds: int = 180
    iterations: int = 30
    raise_wait_seconds: int = Field(
        default=0,
        description="How long a run that hit its cap waits for an operator to raise it",
    )


class Settings(BaseSettings):
    """All prflow settings. Build with :func:`load_settings`."""

    model_config = SettingsConfigDict(
        env_prefix="PRFLOW_",
        env_nested_delimiter="__",
        extra="ignore",
    )

    temporal: TemporalSettings = Field(default_factory=TemporalSettings)
    database_url: str = Field(
        default="",
        validation_alias=AliasChoices("PRFLOW_DATABASE_URL", "DATABASE_URL", "database_url"),
        description="SQLAlchemy URL; empty means a SQLite file in the data directory",
    )
    models: ModelSettings = Field(default_factory=ModelSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    github_api_url: str = Field(
        default="https://api.github.com",
        validation_alias=AliasChoices("PRFLOW_GITHUB_API_URL", "GITHUB_API_URL", "github_api_url"),
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        toml_path = config_file()
        if toml_path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_path))
        return tuple(sources)

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{data_dir() / 'prflow.db'}"


def config_file() -> Path | None:
    """The TOML file in effect, if any."""
    explicit = os.environ.get("PRFLOW_CONFIG")
    if explicit:
        return Path(explicit)
    for candidate in (
        Path.cwd() / "prflow.toml",
        Path(platformdirs.user_config_dir("prflow")) / "config.toml",
    ):
        if candidate.is_file():
            return candidate
    return None


def load_settings(**overrides: Any) -> Settings:
    """Read settings fresh; ``TEMPORAL_ADDRESS`` overrides the nested value."""
    settings = Settings(**overrides)
    address = os.environ.get("TEMPORAL_ADDRESS")
    if address and not settings.temporal.address:
        settings.temporal.address = address
    namespace = os.environ.get("TEMPORAL_NAMESPACE")
    if namespace:
        settings.temporal.namespace = namespace
    return settings


@lru_cache(maxsize=1)
def cached_settings() -> Settings:
    """Process-wide settings for long-lived workers (read once at start)."""
    return load_settings()
