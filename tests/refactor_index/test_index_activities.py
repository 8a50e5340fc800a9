"""The index activities on a real git repository and a real worktree, in an activity context."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError
from temporalio.testing import ActivityEnvironment

from activities.refactor_index import (
    REFACTOR_INDEX_ACTIVITIES,
    IndexSnapshotInput,
    ReindexInput,
    RetrieveInput,
    TreeSource,
    index_snapshot,
    reindex_paths,
    retrieve,
)
from prflow.refactor_index.models import RepoIndex
from prflow.refactor_index.retrieval import RetrievalBundle, RetrievalSettings
from prflow.repo_models import ResolvedRange
from prflow.store.blobs import get_json
from tests.support.fixtures_git import PullRequestRepo


def test_index_reindex_and_retrieve(
    pr_repo: PullRequestRepo, pr_range: ResolvedRange, blob_db: str, tmp_path: Path
) -> None:
    heartbeats: list[object] = []
    env = ActivityEnvironment()
    env.on_heartbeat = lambda *details: heartbeats.append(details)

    ref = env.run(
        index_snapshot,
        IndexSnapshotInput(source=TreeSource(range=pr_range), exclude=["tests/"]),
    )

    index = RepoIndex.model_validate(get_json(blob_db, ref.index_key))
    assert "pkg/core.py" in index.paths() and "pkg/feature.py" in index.paths()
    assert not [p for p in index.paths() if p.startswith("tests/")]
    assert ref.files == len(index.files) and ref.edges == len(index.edges) > 0
    assert ref.files_parsed == ref.files
    assert heartbeats

    worktree = tmp_path / "worktree"
    shutil.copytree(pr_repo.repo.path, worktree, ignore=shutil.ignore_patterns(".git"))
    (worktree / "pkg/service.py").write_text(
        "from pkg.core import helper\n\n\nasync def run():\n    return helper(1)\n"
    )
    again = env.run(
        reindex_paths,
        ReindexInput(
            index_key=ref.index_key, source=TreeSource(root=str(worktree)), paths=["pkg/service.py"]
        ),
    )
    assert again.index_key != ref.index_key
    assert again.files_parsed == 1 and again.files == ref.files

    got = env.run(
        retrieve,
        RetrieveInput(
            index_key=again.index_key,
            query="make the service run function async",
            settings=RetrievalSettings(max_files=3),
        ),
    )
    bundle = RetrievalBundle.model_validate(get_json(blob_db, got.bundle_key))
    assert got.paths == bundle.paths() and got.paths[0] == "pkg/service.py"
    assert len(got.paths) <= 3 and set(got.paths) <= set(index.paths())


def test_a_tree_source_names_exactly_one_place(pr_range: ResolvedRange) -> None:
    with pytest.raises(ValidationError):
        TreeSource()
    with pytest.raises(ValidationError):
        TreeSource(range=pr_range, root="/tmp")


def test_the_activity_list_is_what_a_worker_registers() -> None:
    names = [fn.__temporal_activity_definition.name for fn in REFACTOR_INDEX_ACTIVITIES]  # type: ignore[attr-defined]
    assert names == [
        "refactor_index_snapshot",
        "refactor_index_reindex_paths",
        "refactor_index_retrieve",
    ]
