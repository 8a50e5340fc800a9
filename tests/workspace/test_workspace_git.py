"""Export, apply and branch on real git repositories."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from activities.workspace import edit_workspace, materialise, open_workspace
from activities.workspace_git import apply_workspace, branch_workspace, export_workspace
from prflow.config import cached_settings
from prflow.errors import UserError
from prflow.store.blobs import get_text
from prflow.workspace.edits import CreateFile, DeleteFile, MoveFile, ReplaceEdit
from prflow.workspace.models import (
    WorkspaceApplyInput,
    WorkspaceBranchInput,
    WorkspaceEditInput,
    WorkspaceOpenInput,
    WorkspaceRef,
)
from tests.support.sample_repos import git
from tests.support.workspace_repo import build_workspace_repo


def db() -> str:
    return cached_settings().resolved_database_url()


@pytest.fixture
def shop(tmp_path: Path, prflow_home: Path) -> tuple[Path, WorkspaceRef]:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    (repo / "run.sh").write_text("#!/bin/sh\necho run\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "script")
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="git-run"))
    result = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[
                ReplaceEdit(
                    path="shop/storage.py",
                    old_string="def read_item(",
                    new_string="async def read_item(",
                    reason="async",
                ),
                ReplaceEdit(path="run.sh", old_string="echo run", new_string="echo go", reason="r"),
                CreateFile(path="shop/aio.py", content="ASYNC = True\n", reason="new"),
                DeleteFile(path="README.md", reason="gone"),
                MoveFile(path="shop/cart.py", new_path="shop/basket.py", reason="rename"),
            ],
        ),
    )
    assert result.ok, result.feedback_text
    return repo, result.workspace


def digest(root: Path) -> dict[str, str]:
    out = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = Path(directory) / name
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_each_exported_patch_applies_cleanly_to_the_base(
    shop: tuple[Path, WorkspaceRef], tmp_path: Path
) -> None:
    repo, ref = shop
    objects_before = git(repo, "count-objects", "-v")
    exported = export_workspace(db(), ref)
    assert git(repo, "count-objects", "-v") == objects_before, "export wrote into the repo"
    assert [(f.status, f.old_path, f.path) for f in exported.files] == [
        ("D", None, "README.md"),
        ("M", None, "run.sh"),
        ("A", None, "shop/aio.py"),
        ("R", "shop/cart.py", "shop/basket.py"),
        ("M", None, "shop/storage.py"),
    ]
    assert exported.files[3].file_name == "004-shop-basket.py.patch"
    check = tmp_path / "check"
    subprocess.run(["git", "clone", "-q", str(repo), str(check)], check=True)
    for f in exported.files:
        done = subprocess.run(
            ["git", "-C", str(check), "apply", "--check", "-"],
            input=get_text(db(), f.patch_key).encode(),
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, (f.path, done.stderr)
    combined = subprocess.run(
        ["git", "-C", str(check), "apply", "-"],
        input=get_text(db(), exported.combined_key).encode(),
        check=False,
    )
    assert combined.returncode == 0
    assert digest(check) == digest(materialise(db(), ref))
    assert os.access(check / "run.sh", os.X_OK), "the file mode survives"


def test_apply_writes_a_clean_tree_at_the_base(shop: tuple[Path, WorkspaceRef]) -> None:
    repo, ref = shop
    result = apply_workspace(db(), WorkspaceApplyInput(workspace=ref, path=str(repo)))
    assert "shop/basket.py" in result.written and "shop/cart.py" in result.written
    assert digest(repo) == digest(materialise(db(), ref))
    assert git(repo, "rev-parse", "HEAD") == ref.base_sha


def test_apply_refuses_a_dirty_tree_and_leaves_it_byte_identical(
    shop: tuple[Path, WorkspaceRef],
) -> None:
    repo, ref = shop
    (repo / "shop/storage.py").write_text("# the user's own work\n")
    before = digest(repo)
    with pytest.raises(UserError) as refused:
        apply_workspace(db(), WorkspaceApplyInput(workspace=ref, path=str(repo)))
    assert "has uncommitted changes (shop/storage.py)" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert digest(repo) == before


def test_apply_refuses_a_tree_that_moved_on_or_would_lose_untracked_files(
    shop: tuple[Path, WorkspaceRef],
) -> None:
    repo, ref = shop
    (repo / "shop/aio.py").write_text("mine\n")
    before = digest(repo)
    with pytest.raises(UserError, match="untracked files the change would overwrite"):
        apply_workspace(db(), WorkspaceApplyInput(workspace=ref, path=str(repo)))
    assert digest(repo) == before
    (repo / "shop/aio.py").unlink()
    git(repo, "commit", "-q", "--allow-empty", "-m", "moved on")
    with pytest.raises(UserError, match="not at the run's base"):
        apply_workspace(db(), WorkspaceApplyInput(workspace=ref, path=str(repo)))


def test_branch_commits_the_change_without_touching_the_checkout(
    shop: tuple[Path, WorkspaceRef],
) -> None:
    repo, ref = shop
    (repo / "notes.txt").write_text("untracked work in progress\n")
    before = digest(repo)
    index_before = (repo / ".git" / "index").read_bytes()
    made = branch_workspace(
        db(), WorkspaceBranchInput(workspace=ref, branch="refactor/async-io", message="Go async")
    )
    assert digest(repo) == before and (repo / ".git" / "index").read_bytes() == index_before
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert git(repo, "rev-parse", "refactor/async-io") == made.commit_sha
    assert git(repo, "rev-parse", "refactor/async-io^") == ref.base_sha
    assert git(repo, "log", "-1", "--format=%s", "refactor/async-io") == "Go async"
    assert git(repo, "show", "refactor/async-io:shop/aio.py") == "ASYNC = True"
    assert git(repo, "ls-tree", "refactor/async-io", "run.sh").startswith("100755")
    again = branch_workspace(
        db(), WorkspaceBranchInput(workspace=ref, branch="refactor/async-io", message="Go async")
    )
    assert again == made, "a retry finds its own branch"
    with pytest.raises(UserError, match="already exists"):
        branch_workspace(db(), WorkspaceBranchInput(workspace=ref, branch="main", message="x"))
    with pytest.raises(UserError, match="not a valid branch name"):
        branch_workspace(db(), WorkspaceBranchInput(workspace=ref, branch="a..b", message="x"))
