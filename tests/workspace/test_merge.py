"""Joining the workspaces of tasks that ran side by side: union, or refusal on a conflict."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.workspace import edit_workspace, merge_workspace, open_workspace, patch_log
from activities.workspace_git import load_state
from prflow.config import cached_settings
from prflow.errors import UserError
from prflow.store.blobs import get_text
from prflow.workspace.edits import CreateFile, ReplaceEdit
from prflow.workspace.merge import merge_states
from prflow.workspace.models import (
    WorkspaceEditInput,
    WorkspaceMergeInput,
    WorkspaceOpenInput,
    WorkspaceRef,
)
from tests.support.workspace_repo import build_workspace_repo


def test_merge_states_unions_disjoint_changes_and_names_conflicts() -> None:
    base = {"a": "k1", "gone": None}
    left = {"a": "k1", "gone": None, "b": "k2"}
    right = {"a": "k3"}  # changed a, and reverted 'gone' to the base commit
    merged, conflicts = merge_states(base, [left, right])
    assert (merged, conflicts) == ({"a": "k3", "b": "k2"}, [])
    _, clash = merge_states(base, [{"a": "k4"}, {"a": "k5"}])
    assert clash == ["a"]
    same, none = merge_states(base, [{"a": "k4"}, {"a": "k4", "gone": None}])
    assert none == [] and same["a"] == "k4"


def db() -> str:
    return cached_settings().resolved_database_url()


def edited(ref: WorkspaceRef, edit: ReplaceEdit | CreateFile) -> WorkspaceRef:
    result = edit_workspace(db(), WorkspaceEditInput(workspace=ref, edits=[edit], actor="t"))
    assert result.ok, result.feedback_text
    return result.workspace


def test_concurrent_tasks_join_with_their_patch_logs(tmp_path: Path, prflow_home: Path) -> None:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    start = edited(
        open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="merge-run")),
        CreateFile(path="shop/aio.py", content="A = 1\n", reason="first task"),
    )
    left = edited(
        start,
        ReplaceEdit(
            path="shop/cart.py",
            old_string="total(prices)",
            new_string="total(prices) ",
            reason="left",
        ),
    )
    right = edited(
        edited(
            start, ReplaceEdit(path="README.md", old_string="Sync", new_string="Async", reason="r1")
        ),
        ReplaceEdit(path="README.md", old_string="Async", new_string="Async!", reason="r2"),
    )
    joined = merge_workspace(db(), WorkspaceMergeInput(base=start, branches=[left, right]))
    assert joined.ok and joined.workspace.revision == 4
    files = load_state(db(), joined.workspace).files
    assert set(files) == {"shop/aio.py", "shop/cart.py", "README.md"}
    assert get_text(db(), str(files["README.md"])) == "# shop\n\nAsync! storage helpers.\n"
    assert [p.reason for p in patch_log(db(), joined.workspace)] == [
        "first task",
        "left",
        "r1",
        "r2",
    ]

    clash = edited(
        start,
        ReplaceEdit(
            path="shop/cart.py", old_string="def checkout", new_string="def pay", reason="c"
        ),
    )
    refused = merge_workspace(db(), WorkspaceMergeInput(base=start, branches=[left, clash]))
    assert not refused.ok and refused.conflicts == ["shop/cart.py"] and refused.workspace == start
    with pytest.raises(UserError, match="does not descend"):
        merge_workspace(db(), WorkspaceMergeInput(base=left, branches=[right]))
