"""A refactor workspace's import graph (what each step's audit, mapped tests and executor
context read) on a real repository and store: derived from the base commit's graph, it
equals a whole build of the workspace, edits in place and added or deleted files alike."""

from __future__ import annotations

from pathlib import Path

from activities.refactor import workspace_graph, workspace_tree
from activities.workspace import edit_workspace, open_workspace
from prflow.config import cached_settings
from prflow.git.repo import import_graph, open_repo
from prflow.imports import build_import_graph
from prflow.workspace.edits import CreateFile, DeleteFile, ReplaceEdit
from prflow.workspace.models import WorkspaceEditInput, WorkspaceOpenInput, WorkspaceRef
from tests.support.workspace_repo import build_workspace_repo


def edit(ref: WorkspaceRef, *edits: ReplaceEdit | CreateFile | DeleteFile) -> WorkspaceRef:
    db = cached_settings().resolved_database_url()
    result = edit_workspace(db, WorkspaceEditInput(workspace=ref, edits=list(edits), actor="t"))
    assert result.ok, result.feedback_text
    return result.workspace


def pairs(ref: WorkspaceRef) -> set[tuple[str, str]]:
    return {(e.importer, e.target) for e in workspace_graph(ref).edges}


def test_each_state_graph_equals_a_whole_build_of_the_workspace(
    tmp_path: Path, prflow_home: Path
) -> None:
    repo, sha = build_workspace_repo(tmp_path / "shop")
    base = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="graphs-run"))
    assert workspace_graph(base) is import_graph(open_repo(str(repo)), sha)

    in_place = edit(
        base,
        ReplaceEdit(
            path="shop/cart.py",
            old_string="from shop.storage import total\n",
            new_string="from shop.storage import total\nfrom shop import storage\n",
            reason="use the module",
        ),
    )
    added = edit(
        in_place,
        CreateFile(path="shop/prices.py", content="from shop.cart import checkout\n", reason="new"),
        ReplaceEdit(
            path="tests/test_cart.py",
            old_string="from shop.cart import checkout\n",
            new_string="from shop.prices import checkout\n",
            reason="import from the new module",
        ),
    )
    deleted = edit(added, DeleteFile(path="shop/storage.py", reason="drop"))
    for ref in (in_place, added, deleted):
        assert workspace_graph(ref).edges == build_import_graph(workspace_tree(ref)).edges
    assert ("shop/cart.py", "shop/storage.py") in pairs(in_place)
    assert ("tests/test_cart.py", "shop/prices.py") in pairs(added)
    assert ("tests/test_cart.py", "shop/cart.py") not in pairs(added)
    assert not any("shop/storage.py" in pair for pair in pairs(deleted))
    assert workspace_graph(added) is workspace_graph(added)  # kept per state
