"""The workspace's real pytest suite, run in a network namespace, capped, compared per test."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities import sandbox
from activities.test_runs import outcomes_of, run_tests_in
from activities.workspace import edit_workspace, open_workspace
from prflow.config import cached_settings
from prflow.errors import UserError
from prflow.sandbox.choice import NO_BWRAP, Tools
from prflow.sandbox.models import SandboxKind
from prflow.state_dirs import cache_dir
from prflow.store.blobs import get_text
from prflow.test_runs.compare import compare
from prflow.test_runs.models import Outcome, TestRunInput
from prflow.workspace.edits import CreateFile, ReplaceEdit
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput, WorkspaceRef
from tests.support.sample_repos import commit_all
from tests.support.workspace_repo import build_workspace_repo

STORAGE = "tests.test_storage::"


def db() -> str:
    return cached_settings().resolved_database_url()


@pytest.fixture
def base(tmp_path: Path, prflow_home: Path) -> WorkspaceRef:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    return open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="tests-run"))


def with_edits(ref: WorkspaceRef, *edits: ReplaceEdit | CreateFile) -> WorkspaceRef:
    result = edit_workspace(db(), WorkspaceEditInput(workspace=ref, edits=list(edits)))
    assert result.ok, result.feedback_text
    return result.workspace


@pytest.fixture
def loopback_server() -> Iterator[int]:
    """A TCP server on this namespace's loopback: reachable from here, not from a sandbox."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


@pytest.mark.own_test_envs  # counts the environments it built
def test_before_and_after_runs_report_per_test_outcomes_and_real_regressions(
    base: WorkspaceRef,
) -> None:
    before = run_tests_in(db(), TestRunInput(workspace=base))
    assert before.sandbox == SandboxKind.bwrap
    assert (before.counts.passed, before.counts.failed) == (3, 1)
    assert before.exit_code == 1 and not before.timed_out
    assert before.outcomes_key is not None
    outcomes = {o.id: o.outcome for o in outcomes_of(db(), before.outcomes_key)}
    assert outcomes[STORAGE + "test_known_broken"] == Outcome.failed
    assert "1 failed, 3 passed" in get_text(db(), before.output_key)

    broken = with_edits(
        base,
        ReplaceEdit(
            path="shop/storage.py",
            old_string="return sum(prices)",
            new_string="return sum(prices) + 1",
            reason="off by one on purpose",
        ),
    )
    after = run_tests_in(db(), TestRunInput(workspace=broken))
    assert after.env_hash == before.env_hash, "the dependency spec did not change"
    assert after.outcomes_key is not None
    result = compare(outcomes_of(db(), before.outcomes_key), outcomes_of(db(), after.outcomes_key))
    assert result.regressions == ["tests.test_cart::test_checkout", STORAGE + "test_total"]
    assert result.still_failing == [STORAGE + "test_known_broken"]
    assert result.pass_rate_after == 0.25
    assert len(list((cache_dir() / "test-envs").glob("*/.complete"))) == 1, "one env, reused"

    selected = run_tests_in(db(), TestRunInput(workspace=broken, selection=["tests/test_cart.py"]))
    assert (selected.counts.passed, selected.counts.failed) == (0, 1)


def test_a_requirements_file_that_names_the_project_installs_the_rest(base: WorkspaceRef) -> None:
    """``-e .`` would build the project in its read-only tree and fail the whole install; it
    is left out (the tree is on PYTHONPATH) and every other line is installed."""
    typer_style = with_edits(
        base,
        CreateFile(
            path="requirements-tests.txt",
            content="-e .\n-r requirements/extra.txt\npytest>=7\n",
            reason="a test requirements file as FastAPI and Typer write it",
        ),
        CreateFile(path="requirements/extra.txt", content="six\n", reason="an included file"),
        CreateFile(
            path="tests/test_six.py",
            content="import six\n\n\ndef test_six_is_installed():\n    assert six.PY3\n",
            reason="passes only when the included file was installed",
        ),
    )
    run = run_tests_in(db(), TestRunInput(workspace=typer_style))
    assert (run.counts.passed, run.counts.failed) == (4, 1), get_text(db(), run.output_key)


def test_a_requirements_file_linked_out_of_the_tree_is_not_read(
    tmp_path: Path, prflow_home: Path
) -> None:
    """The worker reads the dependency files on the host: a link to a file of the worker's
    (a key, say) must read as absent, not become requirements the installer reports."""
    secret = tmp_path / "worker-secret.txt"
    secret.write_text("worker-secret-token-1234\n")
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    (repo / "requirements-tests.txt").symlink_to(secret)
    commit_all(repo, "a link out of the tree")
    linked = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="tests-linked"))
    run = run_tests_in(db(), TestRunInput(workspace=linked))
    assert (run.counts.passed, run.counts.failed) == (3, 1)
    assert "worker-secret-token" not in get_text(db(), run.output_key)


def network_probe(port: int) -> CreateFile:
    return CreateFile(
        path="tests/test_network.py",
        content=(
            "import socket\n\n\n"
            "def test_reaches_the_outside_server():\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n\n\n"
            "def test_may_listen_on_its_own_loopback():\n"
            "    s = socket.socket()\n    s.bind(('127.0.0.1', 0))\n    s.listen(1)\n"
            "    socket.create_connection(s.getsockname(), timeout=5).close()\n"
        ),
        reason="network probe",
    )


def test_the_tests_have_no_network(base: WorkspaceRef, loopback_server: int) -> None:
    probe = with_edits(base, network_probe(loopback_server))
    run = run_tests_in(db(), TestRunInput(workspace=probe, selection=["tests/test_network.py"]))
    assert run.outcomes_key is not None
    outcomes = {o.id: o for o in outcomes_of(db(), run.outcomes_key)}
    outside = outcomes["tests.test_network::test_reaches_the_outside_server"]
    assert outside.outcome == Outcome.failed and "Connection refused" in outside.message
    own = outcomes["tests.test_network::test_may_listen_on_its_own_loopback"]
    assert own.outcome == Outcome.passed


def test_without_a_sandbox_the_run_is_refused_unless_allowed(
    base: WorkspaceRef, loopback_server: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    nothing = Tools(host=None, bwrap=None, unshare=None, ip=None, root=True)
    monkeypatch.setattr("activities.test_runs.sandbox_tools", lambda: nothing)
    probe = with_edits(base, network_probe(loopback_server))
    with pytest.raises(UserError) as refused:
        run_tests_in(db(), TestRunInput(workspace=probe))
    assert str(refused.value) == NO_BWRAP
    allowed = run_tests_in(
        db(),
        TestRunInput(workspace=probe, selection=["tests/test_network.py"], allow_unsandboxed=True),
    )
    assert allowed.sandbox == SandboxKind.none
    assert (allowed.counts.passed, allowed.counts.failed) == (2, 0), "the probe can pass"


def test_the_time_cap_kills_the_run_and_says_so(base: WorkspaceRef) -> None:
    slow = with_edits(
        base,
        CreateFile(
            path="tests/test_slow.py",
            content="import time\n\n\ndef test_hangs():\n    time.sleep(120)\n",
            reason="hangs",
        ),
    )
    run_tests_in(db(), TestRunInput(workspace=slow, selection=["tests/test_cart.py"]))  # warm env
    started = time.monotonic()
    run = run_tests_in(
        db(), TestRunInput(workspace=slow, selection=["tests/test_slow.py"], timeout_seconds=3)
    )
    assert time.monotonic() - started < 30
    assert run.timed_out and run.exit_code is None
    assert "ran past the 3s cap and were killed" in get_text(db(), run.output_key)


def test_the_workers_secrets_do_not_reach_the_tests(
    base: WorkspaceRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("STRIPE_API_KEY", "sk_secret")
    monkeypatch.setenv("SHOP_MODE", "kept")
    monkeypatch.setenv("SHOP_INTERNAL", "not listed")
    monkeypatch.setenv("PRFLOW_SANDBOX__PASS_ENV", '["SHOP_MODE"]')
    cached_settings.cache_clear()
    probe = with_edits(
        base,
        CreateFile(
            path="tests/test_env.py",
            content=(
                "import os\n\n\n"
                "def test_no_secrets():\n"
                "    assert 'GITHUB_TOKEN' not in os.environ\n"
                "    assert 'STRIPE_API_KEY' not in os.environ\n"
                "    assert 'PRFLOW_DATABASE_URL' not in os.environ\n"
                "    assert 'SHOP_INTERNAL' not in os.environ\n\n\n"
                "def test_other_variables_pass():\n"
                "    assert os.environ['SHOP_MODE'] == 'kept'\n"
            ),
            reason="env probe",
        ),
    )
    run = run_tests_in(db(), TestRunInput(workspace=probe, selection=["tests/test_env.py"]))
    assert (run.counts.passed, run.counts.failed) == (2, 0), get_text(db(), run.output_key)


def test_a_sandbox_that_is_installed_but_denied_is_not_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    bwrap = fake_bin / "bwrap"
    bwrap.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    bwrap.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    sandbox.sandbox_tools.cache_clear()
    try:
        tools = sandbox.sandbox_tools()
    finally:
        sandbox.sandbox_tools.cache_clear()
    assert tools.host is None and tools.bwrap is None
    assert tools.problem == "bwrap: No permissions to create new namespace"
    assert tools.unshare is not None, "unshare works on this machine (as root)"
