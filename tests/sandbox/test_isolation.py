"""The probe repository's isolation tests, run through the real ``run_tests`` activity."""

from __future__ import annotations

import socket
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
    host_breaches,
    snapshot,
    stage_probe,
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
    facts = stage_probe(
        tmp_path,
        data_dir=prflow_home / "data",
        cache_dir=prflow_home / "cache",
        ledger=prflow_home / "prflow.db",
        port=loopback_port,
        processes=cached_settings().sandbox.limits.processes,
    )
    monkeypatch.setenv("HOME", facts.worker_home)
    for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "SOME_UNLISTED_SETTING"):
        monkeypatch.setenv(name, facts.canary)
    ref = open_workspace(WorkspaceOpenInput(repo=facts.repo, run_id="probe"))
    return ref, facts


@pytest.mark.own_test_envs  # looks for other environments beside its own
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
