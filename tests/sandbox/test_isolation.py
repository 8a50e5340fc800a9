"""The probe repository's isolation tests, run through the real ``run_tests`` activity."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from activities.test_runs import outcomes_of, run_tests
from activities.workspace import open_workspace
from prflow.config import cached_settings
from prflow.sandbox.models import Isolation, SandboxKind, SandboxMode
from prflow.test_runs.models import Outcome, TestRunInput
from prflow.workspace.models import WorkspaceOpenInput, WorkspaceRef
from tests.support.sandbox_probe import (
    PROPERTIES,
    ProbeFacts,
    build_probe_repo,
    env_name,
    host_breaches,
    plant_secrets,
    snapshot,
)


@pytest.fixture
def loopback_port() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


@pytest.fixture
def probe(
    tmp_path: Path, prflow_home: Path, monkeypatch: pytest.MonkeyPatch, loopback_port: int
) -> tuple[WorkspaceRef, ProbeFacts]:
    canary = f"canary-{uuid.uuid4().hex}"
    home = tmp_path / "worker-home"
    plant_secrets(home, canary)
    monkeypatch.setenv("HOME", str(home))
    for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "SOME_UNLISTED_SETTING"):
        monkeypatch.setenv(name, canary)
    data = prflow_home / "data"
    data.mkdir(parents=True)
    (data / "history.db").write_text("the worker's history")
    (tmp_path / "sibling").mkdir()
    repo = tmp_path / "probe"
    facts = ProbeFacts(
        canary=canary,
        worker_home=str(home),
        data_dir=str(data),
        ledger=str(prflow_home / "prflow.db"),
        cache_dir=str(prflow_home / "cache"),
        env_name=env_name(),
        repo=str(repo),
        repo_git=str(repo / ".git"),
        sibling=str(tmp_path / "sibling"),
        port=loopback_port,
        processes=cached_settings().sandbox.limits.processes,
    )
    build_probe_repo(repo, facts)
    return open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="probe")), facts


def test_every_isolation_property_holds_in_the_sandbox(
    probe: tuple[WorkspaceRef, ProbeFacts],
) -> None:
    ref, facts = probe
    warm = run_tests(
        TestRunInput(workspace=ref, selection=["tests/test_isolation.py::test_control"])
    )
    assert (warm.counts.passed, warm.counts.failed) == (1, 0)
    before = snapshot(facts)
    beats: list[object] = []
    activity = ActivityEnvironment()
    activity.on_heartbeat = lambda *details: beats.append(details)
    result = activity.run(run_tests, TestRunInput(workspace=ref))

    assert result.outcomes_key is not None
    db = cached_settings().resolved_database_url()
    outcomes = {o.id.rsplit("::", 1)[-1]: o for o in outcomes_of(db, result.outcomes_key)}
    breaches = host_breaches(facts, before)
    failed = {
        name: outcomes[f"test_{name}"].message[:300] or "; ".join(breaches[name])
        for name in PROPERTIES
        if outcomes[f"test_{name}"].outcome != Outcome.passed or breaches[name]
    }
    assert failed == {}, failed
    assert outcomes["test_control"].outcome == Outcome.passed
    assert beats, "the activity heartbeat while the tests ran"
    report = result.sandbox_report
    assert report is not None and report.kind == SandboxKind.bwrap
    assert report.mode == SandboxMode.bwrap and report.process_limit
    assert {Isolation.network, Isolation.pid, Isolation.filesystem, Isolation.unprivileged} <= set(
        report.isolated
    )


def test_network_only_mode_holds_only_the_network_and_says_so(
    probe: tuple[WorkspaceRef, ProbeFacts],
) -> None:
    ref, _facts = probe
    result = run_tests(
        TestRunInput(
            workspace=ref,
            sandbox=SandboxMode.network_only,
            selection=[
                "tests/test_isolation.py::test_network",
                "tests/test_isolation.py::test_data_dir",
            ],
        )
    )
    assert result.outcomes_key is not None
    db = cached_settings().resolved_database_url()
    outcomes = {o.id.rsplit("::", 1)[-1]: o.outcome for o in outcomes_of(db, result.outcomes_key)}
    assert outcomes == {"test_network": Outcome.passed, "test_data_dir": Outcome.failed}
    report = result.sandbox_report
    assert report is not None and report.isolated == [Isolation.network, Isolation.environment]
    assert report.summary().startswith(f"{report.kind.value} (network only): network, environment")
