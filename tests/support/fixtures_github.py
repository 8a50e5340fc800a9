"""pytest fixtures for the github area.

- ``fake_github``: a started :class:`~tests.support.fake_github.FakeGitHub` with one
  authenticated user (``FAKE_GITHUB_LOGIN``); ``PRFLOW_GITHUB_API_URL`` and
  ``GITHUB_TOKEN`` point prflow at it for the test, and prflow's cached settings
  are dropped before and after so activities read them. At teardown every response
  it served is validated against GitHub's published schema (:func:`schema_violations`).
- ``fake_github_pr``: the same, holding one pull request ``octo-org/service#5``.
- ``github_blob_db``: a SQLite blob store in ``tmp_path`` set as ``PRFLOW_DATABASE_URL``.
- ``bare_repo_with_pr``: a bare git repository with a base and a head commit, for
  seeding a pull request whose ``clone_url`` is a file:// URL.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from prflow.config import cached_settings
from tests.support.fake_github import Exchange, FakeGitHub

FAKE_GITHUB_LOGIN = "prflow-bot"
FAKE_GITHUB_TOKEN = "ghp_fake_prflow_token"

# OpenAPI component name -> class generated from GitHub's REST description (2022-11-28).
SCHEMA_MODEL_NAMES = {
    "private-user": "PrivateUser",
    "full-repository": "FullRepository",
    "pull-request": "PullRequest",
    "issue": "Issue",
    "issue-comment": "IssueComment",
    "basic-error": "BasicError",
    "validation-error": "ValidationError",
    "installation-token": "InstallationToken",
    "pull-request-simple": "PullRequestSimple",
    "minimal-repository": "MinimalRepository",
    "check-runs-list": "ReposOwnerRepoCommitsRefCheckRunsGetResponse200",
    "combined-commit-status": "CombinedCommitStatus",
    "pull-request-review": "PullRequestReview",
    "pull-request-review-comment": "PullRequestReviewComment",
    "review-comment": "ReviewComment",
    "validation-error-simple": "ValidationErrorSimple",
    "diff-entry": "DiffEntry",
    "short-blob": "ShortBlob",
    "git-tree": "GitTree",
    "git-commit": "GitCommit",
    "git-ref": "GitRef",
    "repository-collaborator-permission": "RepositoryCollaboratorPermission",
}
# Answers that are not REST JSON: GraphQL (checked against GitHub's GraphQL schema when
# executed), a redirect to a download, and the downloaded file itself.
NON_REST_SCHEMAS = {"graphql", "redirect", "text", "empty"}


def schema_violations(exchanges: Iterable[Exchange]) -> list[str]:
    """Every response body that does not match GitHub's published schema, described.

    Bodies are validated as JSON in strict mode against the models the
    ``githubkit-schemas`` package generates from GitHub's OpenAPI description.
    """
    from githubkit_schemas.v2022_11_28 import models

    problems: list[str] = []
    for exchange in exchanges:
        where = f"{exchange.method} {exchange.path} -> {exchange.status}"
        if exchange.schema is None:
            problems.append(f"{where}: the fake did not say which schema its body follows")
            continue
        if exchange.schema in NON_REST_SCHEMAS:
            problems += _non_rest_problems(exchange, where)
            continue
        name = exchange.schema.removesuffix("[]")
        model: type[BaseModel] = getattr(models, SCHEMA_MODEL_NAMES[name])
        items = (
            exchange.response_body if exchange.schema.endswith("[]") else [exchange.response_body]
        )
        if not isinstance(items, list):
            problems.append(f"{where}: {exchange.schema} must be a JSON array")
            continue
        for item in items:
            try:
                model.model_validate_json(json.dumps(item), strict=True)
            except ValidationError as exc:
                problems.append(f"{where}: not a valid {name}: {exc}")
    return problems


def _non_rest_problems(exchange: Exchange, where: str) -> list[str]:
    if exchange.schema == "redirect" and not (
        exchange.status == 302 and exchange.response_headers.get("location")
    ):
        return [f"{where}: a redirect needs status 302 and a location header"]
    if exchange.schema == "empty" and (exchange.status != 204 or exchange.response_body):
        return [f"{where}: no content is status 204 with no body"]
    if exchange.schema == "text" and not isinstance(exchange.response_body, str):
        return [f"{where}: a download must be text"]
    if exchange.schema == "graphql" and not (
        isinstance(exchange.response_body, dict)
        and ("data" in exchange.response_body or "errors" in exchange.response_body)
    ):
        return [f"{where}: a GraphQL answer has data or errors"]
    return []


@pytest.fixture
def fake_github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    fake.add_user(FAKE_GITHUB_LOGIN, token=FAKE_GITHUB_TOKEN)
    monkeypatch.setenv("PRFLOW_GITHUB_API_URL", fake.api_url)
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_GITHUB_TOKEN)
    for name in (
        "GH_TOKEN",
        "GITHUB_API_URL",
        "PRFLOW_GITHUB_APP_ID",
        "PRFLOW_GITHUB_APP_PRIVATE_KEY",
        "PRFLOW_GITHUB_APP_PRIVATE_KEY_PATH",
        "PRFLOW_GITHUB_APP_INSTALLATION_ID",
    ):
        monkeypatch.delenv(name, raising=False)
    cached_settings.cache_clear()
    try:
        yield fake
    finally:
        fake.stop()
        cached_settings.cache_clear()
    problems = schema_violations(fake.exchanges)
    assert not problems, "the fake GitHub broke GitHub's schema:\n" + "\n".join(problems)


@pytest.fixture
def fake_github_pr(fake_github: FakeGitHub) -> FakeGitHub:
    """``fake_github`` holding one open pull request, ``octo-org/service#5``."""
    fake_github.add_pull_request("octo-org", "service", 5)
    return fake_github


@pytest.fixture
def github_blob_db(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A SQLite blob store the comment activity reads bodies from (``PRFLOW_DATABASE_URL``)."""
    monkeypatch.setenv("PRFLOW_DATABASE_URL", sqlite_url)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    cached_settings.cache_clear()
    yield sqlite_url
    cached_settings.cache_clear()


@dataclass(frozen=True)
class BareRepo:
    path: Path
    base_sha: str
    head_sha: str


def _git(cwd: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return result.stdout.strip()


@pytest.fixture
def bare_repo_with_pr(tmp_path: Path) -> BareRepo:
    """``main`` with one commit and ``feature`` one commit ahead, pushed to a bare repo."""
    work = tmp_path / "work"
    bare = tmp_path / "origin.git"
    work.mkdir()
    _git(tmp_path, "init", "--bare", "--initial-branch=main", str(bare))
    _git(work, "init", "--initial-branch=main")
    identity = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")
    (work / "app.py").write_text("def greet():\n    return 'hi'\n")
    _git(work, "add", ".")
    _git(work, *identity, "commit", "-m", "base")
    base_sha = _git(work, "rev-parse", "HEAD")
    _git(work, "checkout", "-b", "feature")
    (work / "app.py").write_text("def greet(name):\n    return f'hi {name}'\n")
    _git(work, *identity, "commit", "-am", "head")
    head_sha = _git(work, "rev-parse", "HEAD")
    _git(work, "push", str(bare), "main", "feature")
    return BareRepo(path=bare, base_sha=base_sha, head_sha=head_sha)
