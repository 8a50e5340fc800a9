"""Settings for every prflow process, from the environment and an optional TOML file.

Environment variables use the ``PRFLOW_`` prefix and ``__`` for nesting
(``PRFLOW_BUDGET__USD=5``). ``TEMPORAL_ADDRESS`` and ``DATABASE_URL`` are also
honoured unprefixed because operators already export them. The TOML file is
``$PRFLOW_CONFIG`` if set, else ``./prflow.toml``, else
``<user config dir>/prflow/config.toml``. Secrets (API keys, GitHub tokens) are
never part of these settings: activities read them from the worker's
environment so they cannot leak into workflow history.

A bad setting is a :class:`~prflow.errors.UserError` whose one-line message
names where it came from (the environment variable or the TOML key and file)
and what to do, never a parser traceback.
"""

from __future__ import annotations

import os
import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from prflow.credentials import redact
from prflow.durations import parse_duration
from prflow.errors import UserError
from prflow.limits import MAX_ITERATIONS, MAX_SECONDS, MAX_TOKENS, MAX_USD
from prflow.sandbox.models import ResourceLimits, SandboxMode
from prflow.state_dirs import data_dir

ModelTier = Literal["budget", "mid", "premium"]

ENV_PREFIX = "PRFLOW_"
CONFIG_ENV = "PRFLOW_CONFIG"
TEMPORAL_ADDRESS_HINT = "host:port, such as temporal.internal:7233 (no scheme)"
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})$")


class TemporalSettings(BaseModel):
    """Where the Temporal service is and which task queues the workers poll."""

    address: str | None = Field(
        default=None,
        description="host:port of a Temporal frontend; unset means start the embedded dev server",
    )
    namespace: str = Field(default="default", min_length=1)
    task_queue: str = Field(default="prflow", min_length=1)
    llm_task_queue: str = Field(default="prflow-llm", min_length=1)
    github_task_queue: str = Field(default="prflow-github", min_length=1)
    embedded_port: int = Field(default=7233, ge=1, le=65_535)
    embedded_ui_port: int = Field(default=8233, ge=1, le=65_535)
    llm_max_activities_per_second: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        allow_inf_nan=False,
        description="Rate limit of the LLM task queue across all workers",
    )
    warm_seconds: float = Field(
        default_factory=lambda: 0.0 if os.environ.get("CI") else 900.0,
        ge=0,
        le=MAX_SECONDS,
        allow_inf_nan=False,
        description="Embedded mode: keep a dev server and workers this long after the last "
        "run, so the next one starts at once (0: start and stop them with every command; "
        "the default in CI)",
    )

    @field_validator("address")
    @classmethod
    def _host_and_port(cls, address: str | None) -> str | None:
        return None if not address else check_temporal_address(address)


def check_temporal_address(address: str) -> str:
    """``address`` when it is ``host:port``; a ``ValueError`` saying what is wrong otherwise."""
    match = _HOST_PORT.match(address.strip())
    if match is None:
        raise ValueError(f"expected {TEMPORAL_ADDRESS_HINT}")
    if not 1 <= int(match["port"]) <= 65_535:
        raise ValueError(f"port {match['port']} is out of range; expected {TEMPORAL_ADDRESS_HINT}")
    return address.strip()


class PriceRow(BaseModel):
    """USD per million tokens for one model; an optional higher band for long prompts."""

    model_config = ConfigDict(allow_inf_nan=False)

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
    request_timeout_seconds: float = Field(default=120.0, gt=0, le=3600, allow_inf_nan=False)
    max_attempts: int = Field(default=5, ge=1)

    @field_validator("prices", mode="after")
    @classmethod
    def _keep_default_prices(cls, prices: dict[str, PriceRow]) -> dict[str, PriceRow]:
        """A configured row adds to (or replaces one of) the defaults instead of all of them."""
        return {**_default_prices(), **prices}

    def model_for(self, tier: ModelTier) -> str:
        return str(getattr(self, tier))


class BudgetSettings(BaseModel):
    """Default per-run caps; each workflow splits them by phase."""

    usd: float = Field(default=2.0, ge=0, le=MAX_USD, allow_inf_nan=False)
    tokens: int = Field(default=2_000_000, ge=0, le=MAX_TOKENS)
    wall_clock_seconds: int = Field(default=180, ge=1, le=MAX_SECONDS)
    iterations: int = Field(default=30, ge=1, le=MAX_ITERATIONS)
    raise_wait_seconds: int = Field(
        default=0,
        ge=0,
        le=MAX_SECONDS,
        description="How long a run that hit its cap waits for an operator to raise it",
    )
    deadline: float | None = Field(
        default=None,
        description="Whole-run time limit of impact and review runs ('15m', '1h', seconds); "
        "at it the run reports what it has, marked incomplete",
    )

    @field_validator("deadline", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str | int | float):
            try:
                return parse_duration(value, what="[budget] deadline")
            except UserError as err:
                raise ValueError(err.message) from err
        return value


class PhaseSettings(BaseModel):
    """Overrides for one model phase of one kind: ``[phases.<kind>.<phase>]`` in TOML."""

    model: str | None = Field(default=None, description="Tier (budget/mid/premium) or model id")
    usd: float | None = Field(default=None, ge=0, le=MAX_USD, allow_inf_nan=False)
    tokens: int | None = Field(default=None, ge=0, le=MAX_TOKENS)
    iterations: int | None = Field(default=None, ge=0, le=MAX_ITERATIONS)
    wall_clock_seconds: float | None = Field(
        default=None, ge=0, le=MAX_SECONDS, allow_inf_nan=False
    )
    max_tokens: int | None = Field(default=None, ge=1)


class QueueSettings(BaseModel):
    """The org-wide PR queue: which jobs run on each PR and how many run at once."""

    jobs: list[str] = Field(
        default_factory=lambda: ["impact"],
        description="Job kinds run on every new head of a PR, unless its .prflow.toml says",
    )
    org_max_running: int = Field(
        default=8, ge=1, description="PRs of one organisation whose jobs may run at the same time"
    )


class SandboxSettings(BaseModel):
    """Where repository code runs (tests, installs): ``[sandbox]`` in TOML."""

    mode: SandboxMode = Field(
        default=SandboxMode.bwrap,
        description="bwrap (the full sandbox; refuse without it), network-only (a network "
        "namespace on the host's files) or none",
    )
    pass_env: list[str] = Field(
        default_factory=list,
        description="Names of worker variables the repository's code may see (beyond PATH, "
        "HOME, TMPDIR, LANG, CI and the runner's own)",
    )
    host_uid: int = Field(
        default=65534,
        ge=1,
        le=2**31 - 2,
        description="Host uid the code runs as when the worker is root (never 0)",
    )
    limits: ResourceLimits = Field(default_factory=ResourceLimits)

    @field_validator("pass_env")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise ValueError(f"{name!r} is not a variable name")
        return names


class RefactorSettings(BaseModel):
    """``[refactor]`` in TOML: how ``prflow refactor`` runs the repository's tests."""

    test_command: str | None = Field(
        default=None,
        description="The tests as typed in a shell at the repository root (e.g. 'make test'); "
        "--test-command overrides it; unset: detected from the project",
    )


class ConversationSettings(BaseModel):
    """``[conversation]`` in TOML: what the conversation after a review may do."""

    fix_on_forks: bool = Field(
        default=False,
        description="Run /prflow fix on a PR from a fork (the fix then comes as a stacked "
        "draft PR, never a push to the fork); off: such a command is refused in one reply",
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
    phases: dict[str, dict[str, PhaseSettings]] = Field(
        default_factory=dict,
        description="Per kind and phase: model and caps, e.g. [phases.review.reviewers]",
    )
    queue: QueueSettings = Field(default_factory=QueueSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    refactor: RefactorSettings = Field(default_factory=RefactorSettings)
    conversation: ConversationSettings = Field(default_factory=ConversationSettings)
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65_535,
        description="Port of a worker's Prometheus /metrics endpoint (PRFLOW_METRICS_PORT)",
    )
    health_port: int | None = Field(
        default=None,
        ge=1,
        le=65_535,
        description="Port of a worker's /healthz and /readyz probes (PRFLOW_HEALTH_PORT)",
    )
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
    """The TOML file in effect, if any; a ``PRFLOW_CONFIG`` naming no file is an error."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            problem = "is a directory" if path.is_dir() else "does not exist"
            raise UserError(
                f"{CONFIG_ENV}={explicit} {problem}; point it at a prflow TOML file, "
                "or unset it to use ./prflow.toml"
            )
        return path
    for candidate in (
        Path.cwd() / "prflow.toml",
        Path(platformdirs.user_config_dir("prflow")) / "config.toml",
    ):
        if candidate.is_file():
            return candidate
    return None


def load_settings(**overrides: Any) -> Settings:
    """Read settings fresh; ``TEMPORAL_ADDRESS`` overrides the nested value.

    Raises :class:`UserError` naming the setting when a value, or the file, is invalid.
    """
    try:
        settings = Settings(**overrides)
    except tomllib.TOMLDecodeError as err:
        raise UserError(
            f"{config_file()} is not valid TOML ({err}); fix the file, or point "
            f"{CONFIG_ENV} at another one"
        ) from None
    except ValidationError as err:
        raise _invalid_setting(err) from None
    except SettingsError as err:
        raise UserError(
            f"{_settings_error_source(str(err))} cannot be read ({err}); an object-valued "
            "variable must hold JSON, e.g. PRFLOW_BUDGET='{\"usd\": 5}'"
        ) from None
    address = os.environ.get("TEMPORAL_ADDRESS")
    if address and not settings.temporal.address:
        try:
            settings.temporal.address = check_temporal_address(address)
        except ValueError as err:
            raise UserError(
                f"TEMPORAL_ADDRESS={address!r} is not valid: {err}; fix it, or unset it to "
                "use the embedded dev server"
            ) from None
    namespace = os.environ.get("TEMPORAL_NAMESPACE")
    if namespace:
        settings.temporal.namespace = namespace
    return settings


def _invalid_setting(err: ValidationError) -> UserError:
    """One line for the first invalid value: which variable or TOML key, and what it needs."""
    first = err.errors()[0]
    loc = [str(part) for part in first["loc"]]
    shown = redact(str(first.get("input", "")))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    need = str(first["msg"]).removeprefix("Value error, ")
    need = need[:1].lower() + need[1:]
    return UserError(f"{_source_of(loc)} = {shown!r} is not valid: {need}; fix or remove it")


def _source_of(loc: list[str]) -> str:
    """The environment variable that set ``loc``, else its key in the TOML file."""
    env = {name.upper(): name for name in os.environ}
    candidates = [loc[0].upper()] if loc[0].isupper() else []
    candidates += [ENV_PREFIX + "__".join(loc[:n]).upper() for n in range(len(loc), 0, -1)]
    for candidate in candidates:
        if candidate in env:
            return env[candidate]
    key = ".".join(loc)
    toml = config_file()
    return f"{key} in {toml}" if toml is not None else f"setting {key}"


def _settings_error_source(message: str) -> str:
    field = re.search(r'field "([^"]+)"', message)
    return f"{ENV_PREFIX}{field[1].upper()}" if field else "a PRFLOW_ variable"


@lru_cache(maxsize=1)
def cached_settings() -> Settings:
    """Process-wide settings for long-lived workers (read once at start)."""
    return load_settings()
