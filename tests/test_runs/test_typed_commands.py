"""A test command typed as a user types it runs through the shell in the sandbox, from the
repository root: per-test outcomes from pytest however it is started, and without any report
the exit status is what is compared."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.test_runs import outcomes_of, run_tests_in
from activities.workspace import edit_workspace, open_workspace
from prflow.config import cached_settings
from prflow.store.blobs import get_text
from prflow.test_runs.compare import RunFacts, compare_counts
from prflow.test_runs.models import Outcome, ResultBasis, TestRunInput, TestRunResult
from prflow.workspace.edits import CreateFile, ReplaceEdit
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput, WorkspaceRef
from tests.support.workspace_repo import build_workspace_repo


def db() -> str:
    return cached_settings().resolved_database_url()


@pytest.fixture
def base(tmp_path: Path, prflow_home: Path) -> WorkspaceRef:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    return open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="typed-run"))


def with_edits(ref: WorkspaceRef, *edits: ReplaceEdit | CreateFile) -> WorkspaceRef:
    result = edit_workspace(db(), WorkspaceEditInput(workspace=ref, edits=list(edits)))
    assert result.ok, result.feedback_text
    return result.workspace


def run(ref: WorkspaceRef, command: str, selection: list[str] | None = None) -> TestRunResult:
    return run_tests_in(
        db(), TestRunInput(workspace=ref, command=command, selection=selection or [])
    )


def test_an_env_prefix_and_and_give_per_test_outcomes_from_python_m_pytest(
    base: WorkspaceRef,
) -> None:
    probe = CreateFile(
        path="tests/test_env.py",
        content="import os\n\n\ndef test_the_prefix_reached_the_tests():\n"
        "    assert os.environ['SHOP_MODE'] == 'typed'\n",
        reason="env probe",
    )
    ref = with_edits(base, probe)
    typed = run(ref, "SHOP_MODE=typed python -m pytest -q tests && echo suite-finished")
    assert typed.command[-3:] == [
        "sh",
        "-c",
        "SHOP_MODE=typed python -m pytest -q tests && echo suite-finished",
    ]
    assert typed.basis == ResultBasis.junit and typed.outcomes_key is not None
    outcomes = {o.id: o for o in outcomes_of(db(), typed.outcomes_key)}
    env_test = outcomes["tests.test_env::test_the_prefix_reached_the_tests"]
    assert env_test.outcome == Outcome.passed and env_test.file == "tests/test_env.py"
    assert outcomes["tests.test_storage::test_known_broken"].outcome == Outcome.failed
    assert (typed.counts.passed, typed.counts.failed, typed.tests_found) == (4, 1, 5)
    assert typed.summary[0].startswith("1 failed, 4 passed in ")
    assert "suite-finished" not in get_text(db(), typed.output_key), "&& stops at the failure"

    picked = run(ref, "SHOP_MODE=typed python -m pytest -q tests", ["tests/test_cart.py"])
    assert picked.selection_applied and (picked.counts.passed, picked.tests_found) == (1, 1)


def test_a_suite_without_any_report_is_compared_by_its_exit_status(base: WorkspaceRef) -> None:
    script = CreateFile(
        path="check_shop.py",
        content="from shop.cart import checkout\n\nassert checkout([2, 3]) == 5\n",
        reason="a check that prints nothing",
    )
    before_ref = with_edits(base, script)
    before = run(before_ref, "python check_shop.py")
    assert (before.basis, before.tests_found, before.exit_code) == (
        ResultBasis.exit_status,
        None,
        0,
    )
    broken = with_edits(
        before_ref,
        ReplaceEdit(
            path="shop/storage.py",
            old_string="return sum(prices)",
            new_string="return sum(prices) + 1",
            reason="off by one",
        ),
    )
    after = run(broken, "python check_shop.py")
    assert after.basis == ResultBasis.exit_status and after.exit_code == 1

    def facts(result: TestRunResult) -> RunFacts:
        return RunFacts(
            exit_code=result.exit_code, basis=result.basis, tests_found=result.tests_found
        )

    assert compare_counts(facts(before), facts(after)) == [
        "the test command exited 1 after the change (0 before)"
    ]
    assert compare_counts(facts(before), facts(before)) == []
