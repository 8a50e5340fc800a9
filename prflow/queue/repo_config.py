"""``.prflow.toml`` at the root of a repository: how the queue treats that repository's PRs.

Read at the PR's head commit, so a PR that changes the file is processed
under its own rules (as CI reads its workflow files). Every key is optional::

    enabled = true                       # false: the queue leaves this repository alone
    jobs = ["impact"]                    # job kinds to run on each new head (default: deployment's)
    ignore_paths = ["docs/**", "*.md"]   # a push touching only these runs nothing
    post_comment = true                  # jobs may comment on the PR
    budget_usd = 0.50                    # per job run, for its model phases
    risk_threshold = 70                  # impact runs scoring at or above are flagged

    [docsync]                            # opt in: doc sync runs after the other jobs
    docs = ["docs/**/*.md"]              # doc globs (default: Markdown, MDX, reST, AsciiDoc)
    must_update = 0.8                    # bucket thresholds
    review = 0.4
    max_docs = 10                        # doc agents per run

A mistake in the file is one line naming the key and what it needs; the queue
then runs nothing for that head (the repository's owners may have limited
spend there) and shows the line in the PR workflow's status.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from prflow.errors import UserError

CONFIG_PATH = ".prflow.toml"


class DocsyncSection(BaseModel):
    """``[docsync]``: present (and enabled) means the queue runs doc sync on each new head."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    docs: list[str] = Field(default_factory=list)
    must_update: float = Field(default=0.8, ge=0, le=1)
    review: float = Field(default=0.4, ge=0, le=1)
    max_docs: int = Field(default=10, ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> DocsyncSection:
        if self.review > self.must_update:
            raise ValueError("review must not exceed must_update")
        return self


DOCSYNC_JOB = "docsync"


class RepoConfig(BaseModel):
    """One repository's queue settings (see the module docstring for the file)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    jobs: list[str] | None = Field(default=None, description="None: the deployment's default")
    ignore_paths: list[str] = Field(default_factory=list)
    post_comment: bool = True
    budget_usd: float | None = Field(default=None, ge=0)
    risk_threshold: int | None = Field(default=None, ge=0, le=100)
    docsync: DocsyncSection | None = None

    def jobs_to_run(self, default: Sequence[str]) -> list[str]:
        """The jobs in order; an enabled ``[docsync]`` section adds doc sync last (after
        impact, whose analysis it reads the same way)."""
        jobs = [job for job in (self.jobs if self.jobs is not None else default)]
        if self.docsync is not None and self.docsync.enabled:
            jobs = [job for job in jobs if job != DOCSYNC_JOB] + [DOCSYNC_JOB]
        return list(dict.fromkeys(jobs))

    def only_ignored(self, paths: Iterable[str]) -> bool:
        """True when every path matches an ignore pattern (and there is at least one path)."""
        listed = list(paths)
        return bool(listed) and all(self.ignores(path) for path in listed)

    def ignores(self, path: str) -> bool:
        return any(_matches(path, pattern) for pattern in self.ignore_paths)


def _matches(path: str, pattern: str) -> bool:
    """Glob match where ``dir/**`` also covers the directory's whole subtree."""
    if pattern.endswith("/**") and path.startswith(pattern[:-2]):
        return True
    return fnmatch.fnmatchcase(path, pattern)


def parse_repo_config(text: str | None, known_jobs: Sequence[str]) -> RepoConfig:
    """The config in ``text`` (None: no file, all defaults); :class:`UserError` in one line."""
    if text is None:
        return RepoConfig()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"{CONFIG_PATH} is not valid TOML ({err}); fix the file") from None
    try:
        config = RepoConfig.model_validate(data)
    except ValidationError as err:
        raise UserError(_first_problem(err)) from None
    unknown = [job for job in config.jobs or [] if job not in known_jobs]
    if unknown:
        raise UserError(
            f"{CONFIG_PATH}: jobs names {', '.join(map(repr, unknown))}, which this deployment "
            f"does not run; use any of: {', '.join(known_jobs)}"
        )
    return config


def _first_problem(err: ValidationError) -> str:
    first = err.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        section = DocsyncSection if first["loc"][0] == DOCSYNC_JOB else RepoConfig
        known = ", ".join(section.model_fields)
        return f"{CONFIG_PATH}: unknown key {key!r}; the keys are: {known}"
    shown = repr(first.get("input"))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{CONFIG_PATH}: {key} = {shown} is not valid: {first['msg'].lower()}; fix or remove it"
