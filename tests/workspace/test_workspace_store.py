"""The workspace on real git repositories and the real blob store: edits, reads, worktrees."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from activities.workspace import (
    call_workspace_tool,
    edit_workspace,
    materialise,
    open_workspace,
    patch_log,
)
from activities.workspace_git import load_state
from prflow.config import cached_settings
from prflow.store.blobs import get_text
from prflow.workspace.edits import CreateFile, DeleteFile, MoveFile, ReplaceEdit
from prflow.workspace.models import (
    WorkspaceEditInput,
    WorkspaceOpenInput,
    WorkspaceRef,
    WorkspaceToolInput,
)
from tests.support.workspace_repo import build_workspace_repo


@pytest.fixture
def shop(tmp_path: Path, prflow_home: Path) -> tuple[Path, str]:
    return build_workspace_repo(tmp_path / "shop")


def db() -> str:
    return cached_settings().resolved_database_url()


def tree_digest(root: Path) -> dict[str, str]:
    out = {}
    for directory, _dirs, names in os.walk(root):
        for name in names:
            path = Path(directory) / name
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def edited(ref: WorkspaceRef) -> WorkspaceRef:
    result = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[
                ReplaceEdit(
                    path="shop/storage.py",
                    old_string="def read_item(path: Path) -> str:\n",
                    new_string="async def read_item(path: Path) -> str:\n",
                    reason="reads become async",
                ),
                CreateFile(path="shop/aio.py", content="ASYNC = True\n", reason="new module"),
                DeleteFile(path="README.md", reason="obsolete"),
                MoveFile(path="shop/cart.py", new_path="shop/basket.py", reason="rename"),
            ],
            actor="executor",
        ),
    )
    assert result.ok, result.feedback_text
    return result.workspace


def test_an_edit_stores_a_new_state_and_the_patch_log_with_reasons(shop: tuple[Path, str]) -> None:
    repo, sha = shop
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), base="main", run_id="run-1"))
    assert ref.base_sha == sha and ref.state_key is None
    new = edited(ref)
    assert new.revision == 1 and new.base_sha == sha
    state = load_state(db(), new)
    assert set(state.files) == {
        "shop/storage.py",
        "shop/aio.py",
        "README.md",
        "shop/cart.py",
        "shop/basket.py",
    }
    assert state.files["README.md"] is None
    assert get_text(db(), str(state.files["shop/aio.py"])) == "ASYNC = True\n"
    log = patch_log(db(), new)
    assert [(p.reason, p.actor) for p in log] == [
        ("reads become async", "executor"),
        ("new module", "executor"),
        ("obsolete", "executor"),
        ("rename", "executor"),
    ]
    # The user's checkout is never touched.
    assert "async" not in (repo / "shop/storage.py").read_text()


def test_a_refused_batch_keeps_the_reference_and_teaches(shop: tuple[Path, str]) -> None:
    repo, _sha = shop
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="run-2"))
    result = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[
                ReplaceEdit(path="shop/storage.py", old_string="return", new_string="x", reason="r")
            ],
        ),
    )
    assert not result.ok and result.workspace == ref
    assert "appears 2 times in file (at lines 5, 13)" in result.feedback_text
    outside = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[DeleteFile(path="README.md", reason="r")],
            editable=["shop/"],
        ),
    )
    assert not outside.ok and "You may edit only: shop/." in outside.feedback_text
    binary = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[
                ReplaceEdit(path="assets/logo.bin", old_string="binary", new_string="b", reason="r")
            ],
        ),
    )
    assert not binary.ok and "binary file" in binary.feedback_text


def test_reverting_a_file_to_its_base_content_drops_it_from_the_state(
    shop: tuple[Path, str],
) -> None:
    repo, _sha = shop
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="run-3"))
    there = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=ref,
            edits=[
                ReplaceEdit(path="README.md", old_string="Sync", new_string="Async", reason="a"),
                ReplaceEdit(path="README.md", old_string="Async", new_string="Sync", reason="b"),
            ],
        ),
    )
    assert there.ok and load_state(db(), there.workspace).files == {}


def tool(ref: WorkspaceRef, name: str, **arguments: object) -> str:
    out = call_workspace_tool(
        db(), WorkspaceToolInput(workspace=ref, tool=name, arguments=arguments)
    )
    return get_text(db(), out.content_key)


def test_read_search_and_list_see_the_workspace_not_the_base(shop: tuple[Path, str]) -> None:
    repo, _sha = shop
    ref = edited(open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="run-4")))
    assert "     4\tasync def read_item(path: Path) -> str:" in tool(
        ref, "read_file", path="shop/storage.py"
    )
    assert "does not exist in the workspace" in tool(ref, "read_file", path="README.md")
    hits = tool(ref, "search_code", pattern="def (read|write)_item")
    assert hits.splitlines() == [
        "shop/storage.py:4:async def read_item(path: Path) -> str:",
        "shop/storage.py:8:def write_item(path: Path, text: str) -> None:",
    ]
    assert "shop/basket.py:1:from shop.storage import total" in tool(
        ref, "search_code", pattern="import total"
    )
    listing = tool(ref, "list_files", glob="shop/*").splitlines()
    assert listing == ["shop/__init__.py", "shop/aio.py", "shop/basket.py", "shop/storage.py"]


def test_edit_tools_return_the_new_reference_or_the_refusal(shop: tuple[Path, str]) -> None:
    repo, _sha = shop
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="run-5"))
    ok = call_workspace_tool(
        db(),
        WorkspaceToolInput(
            workspace=ref,
            tool="edit_file",
            arguments={
                "path": "shop/storage.py",
                "edits": [
                    {
                        "old_string": "sum(prices)",
                        "new_string": "sum(prices, 0)",
                        "reason": "explicit start",
                    }
                ],
            },
        ),
    )
    assert ok.ok and ok.workspace is not None and ok.workspace.revision == 1
    assert "sum(prices, 0)" in get_text(db(), ok.content_key)
    bad = call_workspace_tool(
        db(), WorkspaceToolInput(workspace=ref, tool="edit_file", arguments={"path": "x.py"})
    )
    assert not bad.ok and bad.workspace is None and "edits: Field required" in str(bad.error)


def test_a_worktree_is_rebuilt_on_a_worker_with_an_empty_cache(
    shop: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _sha = shop
    ref = edited(open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="run-6")))
    first = materialise(db(), ref)
    assert (
        (first / "shop/storage.py")
        .read_text()
        .startswith("from pathlib import Path\n\n\nasync def")
    )
    assert not (first / "README.md").exists() and not (first / "shop/cart.py").exists()
    assert (first / "shop/basket.py").is_file()
    expected = tree_digest(first)

    monkeypatch.setenv("PRFLOW_CACHE_DIR", str(tmp_path / "second-worker-cache"))
    second = materialise(db(), ref)
    assert second != first and tree_digest(second) == expected


def test_a_newer_state_updates_the_worktree_in_place(shop: tuple[Path, str]) -> None:
    repo, _sha = shop
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="run-7"))
    base_tree = materialise(db(), ref)
    base_digest = tree_digest(base_tree)
    newer = edited(ref)
    tree = materialise(db(), newer)
    assert tree == base_tree
    assert "shop/basket.py" in tree_digest(tree) and "README.md" not in tree_digest(tree)
    reverted = edit_workspace(
        db(),
        WorkspaceEditInput(
            workspace=newer,
            edits=[
                MoveFile(path="shop/basket.py", new_path="shop/cart.py", reason="undo"),
                DeleteFile(path="shop/aio.py", reason="undo"),
                CreateFile(
                    path="README.md", content="# shop\n\nSync storage helpers.\n", reason="undo"
                ),
                ReplaceEdit(
                    path="shop/storage.py", old_string="async def", new_string="def", reason="undo"
                ),
            ],
        ),
    )
    assert reverted.ok and load_state(db(), reverted.workspace).files == {}
    assert tree_digest(materialise(db(), reverted.workspace)) == base_digest


def test_a_remote_repository_is_read_through_its_mirror(shop: tuple[Path, str]) -> None:
    repo, sha = shop
    ref = open_workspace(WorkspaceOpenInput(repo=f"file://{repo}", run_id="run-8"))
    assert ref.base_sha == sha
    new = edited(ref)
    tree = materialise(db(), new)
    assert (tree / "shop/aio.py").read_text() == "ASYNC = True\n"
