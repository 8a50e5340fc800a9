"""The refactor kind's index activities on a real git repository, in an activity context.

These are the activities the refactor workflow schedules: ``refactor_index`` over
the run's workspace, ``refactor_reindex`` after a task changed files, and
``refactor_retrieve`` for a task's context.
"""

from __future__ import annotations

from temporalio.testing import ActivityEnvironment

from activities.refactor import (
    IndexData,
    IndexInput,
    ReindexInput,
    RetrieveTaskInput,
    refactor_index,
    refactor_reindex,
    refactor_retrieve,
)
from prflow.refactor_index.models import RepoIndex
from prflow.refactor_index.retrieval import RetrievalBundle
from prflow.store.blobs import get_json, put_json, put_text
from prflow.workspace.models import WorkspaceRef, WorkspaceState
from tests.support.fixtures_git import PullRequestRepo

ASYNC_SERVICE = "from pkg.core import helper\n\n\nasync def run():\n    return helper(1)\n"


def test_index_reindex_and_retrieve(pr_repo: PullRequestRepo, blob_db: str) -> None:
    heartbeats: list[object] = []
    env = ActivityEnvironment()
    env.on_heartbeat = lambda *details: heartbeats.append(details)
    workspace = WorkspaceRef(repo=str(pr_repo.path), base_sha=pr_repo.head_sha, run_id="r1")

    summary = env.run(
        refactor_index,
        IndexInput(workspace=workspace, directive="make run async", exclude=["tests/"]),
    )

    index = RepoIndex.model_validate(get_json(blob_db, summary.repo_index_key))
    data = IndexData.model_validate(get_json(blob_db, summary.key))
    assert "pkg/core.py" in index.paths() and "pkg/feature.py" in index.paths()
    assert not [p for p in index.paths() if p.startswith("tests/")]
    assert summary.indexed == len(index.files) and len(index.edges) > 0
    assert data.repo_index_key == summary.repo_index_key and not data.test_paths
    assert heartbeats

    state = WorkspaceState(files={"pkg/service.py": put_text(blob_db, ASYNC_SERVICE)})
    changed = workspace.model_copy(update={"state_key": put_json(blob_db, state), "revision": 1})
    again_key = env.run(
        refactor_reindex,
        ReindexInput(
            repo_index_key=summary.repo_index_key, workspace=changed, paths=["pkg/service.py"]
        ),
    )
    again = RepoIndex.model_validate(get_json(blob_db, again_key))
    assert again_key != summary.repo_index_key
    assert again.paths() == index.paths()
    assert again.blob_of("pkg/service.py") != index.blob_of("pkg/service.py")
    assert again.blob_of("pkg/core.py") == index.blob_of("pkg/core.py")

    got = env.run(
        refactor_retrieve,
        RetrieveTaskInput(
            repo_index_key=again_key, query="make the service run function async", max_files=3
        ),
    )
    bundle = RetrievalBundle.model_validate(get_json(blob_db, got.bundle_key))
    assert got.paths == bundle.paths() and got.paths[0] == "pkg/service.py"
    assert len(got.paths) <= 3 and set(got.paths) <= set(index.paths())
