"""The worker's git stays the worker's: hooks and fsmonitor from a repository's config don't run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from activities.workspace import edit_workspace, open_workspace
from activities.workspace_git import apply_workspace
from prflow.config import cached_settings
from prflow.workspace.edits import ReplaceEdit
from prflow.workspace.models import WorkspaceApplyInput, WorkspaceEditInput, WorkspaceOpenInput
from tests.support.workspace_repo import build_workspace_repo


def plant_programs(repo: Path, marker: Path) -> None:
    """What a test could write into a .git it reached: an fsmonitor program and hooks."""
    script = repo.parent / "planted.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\n')
    script.chmod(0o755)
    hooks = repo.parent / "planted-hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-applypatch", "pre-commit", "post-index-change"):
        (hooks / hook).symlink_to(script)
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", str(script)], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "core.hooksPath", str(hooks)], check=True)


def test_a_planted_fsmonitor_and_hooks_do_not_run_in_the_workers_git(
    tmp_path: Path, prflow_home: Path
) -> None:
    repo, _sha = build_workspace_repo(tmp_path / "shop")
    marker = tmp_path / "ran.txt"
    plant_programs(repo, marker)
    db = cached_settings().resolved_database_url()
    opened = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="git-hardening"))
    edited = edit_workspace(
        db,
        WorkspaceEditInput(
            workspace=opened,
            edits=[
                ReplaceEdit(
                    path="shop/storage.py",
                    old_string="return sum(prices)",
                    new_string="return sum(prices) + 0",
                    reason="a change to apply",
                )
            ],
        ),
    )
    assert edited.ok
    applied = apply_workspace(db, WorkspaceApplyInput(workspace=edited.workspace, path=str(repo)))
    assert applied.written == ["shop/storage.py"]
    assert not marker.exists(), marker.read_text()

    # The same repository with plain git: the planted program does run (the test can fail).
    plain = ["git", "-C", str(repo), "status"]
    subprocess.run(plain, capture_output=True, env=dict(os.environ), check=False)
    assert marker.exists()
