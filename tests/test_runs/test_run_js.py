"""A real JS project: npm ci once per lockfile, vitest in the network namespace, JUnit parsed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from activities.test_runs import outcomes_of, run_tests_in
from activities.workspace import edit_workspace, open_workspace
from prflow.config import cached_settings
from prflow.sandbox.models import SandboxKind
from prflow.state_dirs import cache_dir
from prflow.test_runs.compare import compare
from prflow.test_runs.models import Outcome, TestRunInput
from prflow.workspace.edits import ReplaceEdit
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput
from tests.support.sample_repos import commit_all, init_repo, write_files

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "js_shop"
SOURCES = {
    "src/cart.js": "export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n",
    "src/cart.test.js": (
        'import { describe, it, expect } from "vitest";\n'
        'import { total } from "./cart.js";\n\n'
        'describe("cart", () => {\n'
        '  it("adds", () => { expect(total([1, 2])).toBe(3); });\n'
        '  it("starts at one", () => { expect(total([])).toBe(1); });\n'
        "});\n"
    ),
}


@pytest.mark.own_test_envs  # counts the environments it built
def test_a_vitest_suite_runs_without_network_and_compares_per_test(
    tmp_path: Path, prflow_home: Path
) -> None:
    repo = init_repo(tmp_path / "js-shop")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(FIXTURE / name, repo / name)
    write_files(repo, SOURCES)
    commit_all(repo, "js shop")
    db = cached_settings().resolved_database_url()
    base = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="js-run"))

    before = run_tests_in(db, TestRunInput(workspace=base))
    assert before.sandbox == SandboxKind.bwrap
    assert before.command[:4] == ["npx", "vitest", "run", "--reporter=junit"]
    assert (before.counts.passed, before.counts.failed) == (1, 1)
    assert before.outcomes_key is not None
    ids = {o.id: o.outcome for o in outcomes_of(db, before.outcomes_key)}
    assert ids == {
        "src/cart.test.js::cart > adds": Outcome.passed,
        "src/cart.test.js::cart > starts at one": Outcome.failed,
    }

    edited = edit_workspace(
        db,
        WorkspaceEditInput(
            workspace=base,
            edits=[
                ReplaceEdit(
                    path="src/cart.js",
                    old_string="(a, b) => a + b, 0)",
                    new_string="(a, b) => a + b, 1)",
                    reason="totals start at one",
                )
            ],
        ),
    )
    assert edited.ok
    after = run_tests_in(db, TestRunInput(workspace=edited.workspace))
    assert after.env_hash == before.env_hash
    assert after.outcomes_key is not None
    result = compare(outcomes_of(db, before.outcomes_key), outcomes_of(db, after.outcomes_key))
    assert result.regressions == ["src/cart.test.js::cart > adds"]
    assert result.fixed == ["src/cart.test.js::cart > starts at one"]
    assert len(list((cache_dir() / "test-envs").glob("*/.complete"))) == 1


def test_npm_manifests_linked_out_of_the_tree_are_not_copied(tmp_path: Path) -> None:
    from activities.test_envs import copy_npm_manifests

    worker_npmrc = tmp_path / "home" / ".npmrc"
    worker_npmrc.parent.mkdir()
    worker_npmrc.write_text("//registry.npmjs.org/:_authToken=worker-token\n")
    tree, staging = tmp_path / "tree", tmp_path / "staging"
    tree.mkdir()
    staging.mkdir()
    (tree / "package.json").write_text('{"name": "x"}\n')
    (tree / "package-lock.json").symlink_to("package.json")  # inside the tree: followed
    (tree / ".npmrc").symlink_to(worker_npmrc)
    copy_npm_manifests(tree, staging)
    assert sorted(p.name for p in staging.iterdir()) == ["package-lock.json", "package.json"]
