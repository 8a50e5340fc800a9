"""Secrets in repository locations are refused everywhere and never reach history or the ledger.

The unit tests pin the rule (every spelling git reads a secret from); the CLI
test runs ``prflow impact`` with each spelling against a real Temporal server
and worker, then a clean run from a clone whose ``origin`` URL and the
worker's environment hold secrets, and finally reads every workflow history
on the server and every row of the ledger and blob tables looking for them.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import MetaData, create_engine, select
from temporalio.client import Client

from prflow.agent.planning import phase_plan
from prflow.config import load_settings
from prflow.credentials import (
    CredentialsInLocation,
    redact,
    redacted_location,
    refuse_credentials,
)
from prflow.errors import UserError
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE, ImpactRequest
from prflow.pr_identifier import parse_pr_identifier
from prflow.repo_models import RepoSpec, ResolvedRange
from tests.hostile.checks import one_line_error
from tests.support.cli_runs import CliRun, client_environment, run_prflow
from tests.support.fixtures_temporal import WorkerProcess, isolated_settings
from tests.support.sample_repos import build_sample_repo, git

SECRET = "s3cr3t-Tok3n"

SECRET_LOCATIONS = {
    "https user:password": f"https://alice:{SECRET}@github.com/acme/api.git",
    "https token as user": f"https://{SECRET}@github.com/acme/api.git",
    "http upper-case scheme": f"HTTP://bot:{SECRET}@git.example.com/acme/api",
    "ssh user:password": f"ssh://git:{SECRET}@github.com:22/acme/api.git",
    "git+ssh user:password": f"git+ssh://git:{SECRET}@github.com/acme/api.git",
    "git protocol": f"git://bot:{SECRET}@example.com/acme/api.git",
    "ftps user:password": f"ftps://bot:{SECRET}@example.com/api.git",
    "file url": f"file://bot:{SECRET}@/srv/git/api.git",
    "scp-like with password": f"git:{SECRET}@github.com:acme/api.git",
    "query token": f"https://github.com/acme/api.git?access_token={SECRET}",
    "query private-token": f"https://gitlab.example.com/acme/api.git?private-token={SECRET}&x=1",
    "userinfo with @ inside": f"https://alice@corp:{SECRET}@github.com/acme/api.git",
}

PLAIN_LOCATIONS = [
    "https://github.com/acme/api.git",
    "ssh://git@github.com/acme/api.git",
    "git@github.com:acme/api.git",
    "file:///srv/git/api.git",
    "/home/alice/src/api",
    "../api",
    "/home/alice/mail@example.com/api",
    "https://github.com/acme/api.git?ref=main",
]


@pytest.mark.parametrize("location", SECRET_LOCATIONS.values(), ids=SECRET_LOCATIONS.keys())
def test_every_spelling_that_carries_a_secret_is_refused_and_shown_redacted(
    location: str,
) -> None:
    shown = redacted_location(location)
    assert shown is not None
    assert SECRET not in shown
    assert "***" in shown
    with pytest.raises(CredentialsInLocation) as refused:
        refuse_credentials(location)
    assert str(refused.value).startswith(shown)
    with pytest.raises(ValidationError) as invalid:
        RepoSpec(location=location)
    assert SECRET not in str(invalid.value)


@pytest.mark.parametrize("location", PLAIN_LOCATIONS)
def test_locations_without_a_secret_pass(location: str) -> None:
    assert redacted_location(location) is None
    assert RepoSpec(location=location).location == location


def test_every_model_that_carries_a_location_refuses_a_secret() -> None:
    """A webhook or MCP handler building these models gets a validation error without the secret."""
    location = SECRET_LOCATIONS["https user:password"]
    plan = phase_plan(load_settings(), IMPACT, LLM_PHASE, enabled=False)
    attempts: list[Callable[[], object]] = [
        lambda: RepoSpec.model_validate({"location": location}),
        lambda: ImpactRequest(repo=location, llm=plan),
        lambda: ImpactRequest.model_validate_json(
            json.dumps({"repo": location, "llm": plan.model_dump(mode="json")})
        ),
        lambda: ResolvedRange(
            repo_key="k",
            location=location,
            base_ref="main",
            head_ref="feature",
            base_sha="a" * 40,
            head_sha="b" * 40,
            merge_base_sha="a" * 40,
        ),
    ]
    for attempt in attempts:
        with pytest.raises(ValidationError) as refused:
            attempt()
        assert SECRET not in str(refused.value)
        assert "carries credentials" in str(refused.value)


def test_a_pull_request_url_with_credentials_is_refused_before_it_is_echoed() -> None:
    with pytest.raises(UserError) as refused:
        parse_pr_identifier(f"https://alice:{SECRET}@github.com/acme/api/pull/12")
    assert SECRET not in str(refused.value)
    with pytest.raises(UserError) as not_a_pr:  # not a PR either: the echo must still be clean
        parse_pr_identifier(f"https://{SECRET}@github.com/acme")
    assert SECRET not in str(not_a_pr.value)


def test_secrets_are_scrubbed_from_free_text() -> None:
    text = (
        f"fatal: unable to access 'https://bot:{SECRET}@github.com/acme/api.git/': 403; "
        f"retry with git:{SECRET}@github.com:acme/api.git or ssh://git@github.com/acme/api"
    )
    scrubbed = redact(text)
    assert SECRET not in scrubbed
    assert "ssh://git@github.com/acme/api" in scrubbed  # an account name is not a secret


# ------------------------------------------------------------------ through the real CLI

WORKER_SECRET = "ghp_w0rk3rS3cr3t"


@pytest.fixture
async def scanned_env(temporal_address: str, tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    """Client env for ``prflow`` plus a worker subprocess whose environment holds a token."""
    home = tmp_path / "home"
    env = client_environment(isolated_settings(temporal_address), home)
    env["GITHUB_TOKEN"] = WORKER_SECRET
    worker = WorkerProcess(env, tmp_path / "worker.log")
    await worker.start()
    yield env
    try:
        await worker.stop()
    except TimeoutError:
        worker.kill()
    assert WORKER_SECRET not in worker.stderr() and SECRET not in worker.stderr()


def refused_runs(repo: Path) -> list[tuple[str, ...]]:
    """Every option that takes a location, each given a secret-bearing one."""
    runs: list[tuple[str, ...]] = [
        ("--repo", location, "--base", "main") for location in SECRET_LOCATIONS.values()
    ]
    runs += [
        ("--pr", "acme/api#12", "--repo", SECRET_LOCATIONS["https token as user"]),
        ("--pr", "acme/api#12", "--repo", SECRET_LOCATIONS["scp-like with password"]),
        ("--pr", f"https://alice:{SECRET}@github.com/acme/api/pull/12"),
        ("--pr", f"https://alice:{SECRET}@github.com/acme/api/pull/12", "--repo", str(repo)),
    ]
    return runs


def assert_refused(run: CliRun) -> None:
    line = one_line_error(run, 2, "carries credentials", "***")
    assert SECRET not in run.stdout + run.stderr, line


@pytest.mark.temporal
async def test_cli_refuses_every_secret_location_and_no_history_or_row_holds_a_secret(
    scanned_env: dict[str, str], temporal_client: Client, tmp_path: Path
) -> None:
    env = scanned_env
    repo = build_sample_repo(tmp_path / "shop")
    # A real clone often has a token in its origin URL; prflow must not copy it anywhere.
    git(repo, "remote", "add", "origin", SECRET_LOCATIONS["https user:password"])
    output = tmp_path / "impact.json"

    for args in refused_runs(repo):
        run = await run_prflow("impact", *args, "-o", str(output), env=env)
        assert_refused(run)
    assert not output.exists()

    clean = await run_prflow(
        "impact", "--repo", str(repo), "--base", "base", "--head", "feature",
        "--format", "json", "-o", str(output), env=env,
    )  # fmt: skip
    assert clean.code == 0, clean.describe()
    report_text = output.read_text(encoding="utf-8")
    workflow_id = json.loads(report_text)["workflow_id"]

    histories = await all_histories(temporal_client, must_include=workflow_id)
    assert str(repo) in histories[workflow_id], "the scan must see decoded payloads"
    leaks = [wid for wid, text in histories.items() if SECRET in text or WORKER_SECRET in text]
    assert leaks == [], f"secret found in the history of {leaks}"
    rows = database_text(env["PRFLOW_DATABASE_URL"])
    assert rows, "the ledger database holds no rows at all: the scan would prove nothing"
    assert SECRET not in rows and WORKER_SECRET not in rows
    assert SECRET not in report_text


async def all_histories(client: Client, *, must_include: str) -> dict[str, str]:
    """JSON text of every workflow history on the server, keyed by workflow id."""
    for _ in range(50):  # visibility of a just-closed run lags a little behind
        ids = [w.id async for w in client.list_workflows()]
        if must_include in ids:
            break
        await asyncio.sleep(0.2)
    assert must_include in ids, f"{must_include} not listed by the server"
    histories: dict[str, str] = {}
    for workflow_id in dict.fromkeys(ids):
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        histories[workflow_id] = history_text(history.to_json_dict())
    return histories


def history_text(node: object) -> str:
    """All text of a history: its fields, and every payload's data decoded from base64."""
    parts: list[str] = []

    def visit(value: object) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("data"), str) and "metadata" in value:
                parts.append(base64.b64decode(value["data"]).decode("utf-8", "replace"))
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)
        else:
            parts.append(str(value))

    visit(node)
    return "\n".join(parts)


def database_text(url: str) -> str:
    """Every value of every row of every table, as one string (bytes decoded leniently)."""
    engine = create_engine(url)
    metadata = MetaData()
    metadata.reflect(engine)
    parts: list[str] = []
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            for row in connection.execute(select(table)):
                for value in row:
                    data = bytes(value) if isinstance(value, bytes | memoryview) else None
                    parts.append(data.decode("utf-8", "replace") if data else str(value))
    engine.dispose()
    return "\n".join(parts)
