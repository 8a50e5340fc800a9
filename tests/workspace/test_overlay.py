"""The workspace as a file list: base commit, less deletions, plus new files — one rule for
the workspace tools and for the refactor kind's index."""

from __future__ import annotations

from pathlib import Path

from activities.refactor import workspace_tree
from activities.workspace import WorkspaceFiles, edit_workspace, open_workspace
from prflow.config import cached_settings
from prflow.workspace.edits import CreateFile, DeleteFile
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput, overlay_paths
from tests.support.workspace_repo import FILES, build_workspace_repo


def test_overlay_paths_drops_deletions_and_adds_new_files() -> None:
    base = ["b.py", "a.py", "gone.py"]
    changes: dict[str, str | None] = {"gone.py": None, "new.py": "k1", "a.py": "k2", "x": None}
    assert overlay_paths(base, changes) == ["a.py", "b.py", "new.py"]


def test_the_workspace_tools_and_the_index_list_the_same_files(
    tmp_path: Path, prflow_home: Path
) -> None:
    db = cached_settings().resolved_database_url()
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="overlay-run"))
    edits = [
        CreateFile(path="shop/aio.py", content="A = 1\n", reason="add"),
        DeleteFile(path="README.md", reason="drop"),
    ]
    result = edit_workspace(db, WorkspaceEditInput(workspace=ref, edits=edits, actor="t"))
    assert result.ok, result.feedback_text

    listed = WorkspaceFiles(db, result.workspace).list_files()
    expected = sorted({*FILES, "shop/aio.py"} - {"README.md"})
    assert listed == expected
    assert workspace_tree(result.workspace).paths() == listed
