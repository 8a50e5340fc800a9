"""Activities of the refactor index: index a snapshot, re-index changed paths, retrieve a bundle.

Each reads a tree (a commit snapshot shared per SHA, or a directory on this
worker such as a run's worktree), calls :mod:`prflow.refactor_index` with
the database as parse and vector cache, and stores the index or the bundle
as a JSON blob: the workflow gets keys and counts, never the index itself.

Usage from a workflow (all heartbeat; schedule with a heartbeat timeout)::

    ref = await workflow.execute_activity(
        index_snapshot, IndexSnapshotInput(source=TreeSource(range=rng, sha=rng.head_sha)), ...)
    ref = await workflow.execute_activity(
        reindex_paths, ReindexInput(index_key=ref.index_key,
                                    source=TreeSource(root=worktree), paths=changed), ...)
    got = await workflow.execute_activity(
        retrieve, RetrieveInput(index_key=ref.index_key, query=task_text), ...)
    got.paths, got.bundle_key   # the bundle is recorded under bundle_key
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, model_validator
from temporalio import activity

from activities.gitrepo import repo_for_range, snapshot
from activities.heartbeats import heartbeating
from prflow.config import cached_settings
from prflow.refactor_index.models import RepoIndex
from prflow.refactor_index.retrieval import RetrievalSettings
from prflow.repo_models import ResolvedRange
from prflow.source_tree import DirectoryTree, SourceTree
from prflow.store.blobs import get_json, put_json
from prflow.store.parse_cache import StoreParseCache

if TYPE_CHECKING:  # the index builder and search load numpy: imported when an activity runs
    from prflow.refactor_index.build import IndexCaches, IndexStats


class TreeSource(BaseModel):
    """Where the files are: a commit of a resolved range, or a directory on this worker."""

    range: ResolvedRange | None = None
    sha: str | None = Field(default=None, description="Commit to read; default the range's head")
    root: str | None = Field(default=None, description="A directory on this worker (a worktree)")

    @model_validator(mode="after")
    def _one_source(self) -> TreeSource:
        if (self.range is None) == (self.root is None):
            raise ValueError("give either range (with an optional sha) or root")
        return self


class IndexSnapshotInput(BaseModel):
    source: TreeSource
    include: list[str] = Field(default_factory=list, description="gitignore-style globs")
    exclude: list[str] = Field(default_factory=list)


class ReindexInput(BaseModel):
    index_key: str
    source: TreeSource
    paths: list[str] = Field(description="Paths changed since the index was made")


class IndexRef(BaseModel):
    """A stored index and what it took to make it."""

    index_key: str
    files: int
    edges: int
    is_react_project: bool
    is_next_project: bool
    skipped: int
    files_parsed: int
    texts_embedded: int


class RetrieveInput(BaseModel):
    index_key: str
    query: str
    settings: RetrievalSettings = Field(default_factory=RetrievalSettings)


class RetrieveResult(BaseModel):
    bundle_key: str = Field(description="The recorded RetrievalBundle (JSON blob)")
    paths: list[str] = Field(description="Indexed paths, best first")


def _db() -> str:
    return cached_settings().resolved_database_url()


def _caches() -> IndexCaches:
    from prflow.refactor_index.build import IndexCaches
    from prflow.store.embeddings import StoreVectorCache

    db = _db()
    return IndexCaches(parses=StoreParseCache(db), vectors=StoreVectorCache(db), progress=_report)


def _report(message: str) -> None:
    if activity.in_activity():
        activity.heartbeat(message)


def _tree(source: TreeSource) -> SourceTree:
    if source.root is not None:
        return DirectoryTree(Path(source.root))
    assert source.range is not None
    sha = source.sha or source.range.head_sha
    return DirectoryTree(snapshot(repo_for_range(source.range), sha))


def _ref(index: RepoIndex, stats: IndexStats) -> IndexRef:
    return IndexRef(
        index_key=put_json(_db(), index),
        files=len(index.files),
        edges=len(index.edges),
        is_react_project=index.is_react_project,
        is_next_project=index.is_next_project,
        skipped=len(index.skipped),
        files_parsed=stats.files_parsed,
        texts_embedded=stats.vectors.embedded,
    )


@activity.defn(name="refactor_index_snapshot")
@heartbeating
def index_snapshot(inp: IndexSnapshotInput) -> IndexRef:
    """Index every selected file of a snapshot (parses and vectors other runs made are reused)."""
    from prflow.refactor_index.build import IndexStats, build_index

    stats = IndexStats()
    index = build_index(
        _tree(inp.source), _caches(), include=inp.include, exclude=inp.exclude, stats=stats
    )
    return _ref(index, stats)


@activity.defn(name="refactor_index_reindex_paths")
@heartbeating
def reindex_paths(inp: ReindexInput) -> IndexRef:
    """The stored index brought up to date for ``paths`` only (edited, added or deleted)."""
    from prflow.refactor_index.build import IndexStats, update_index

    previous = RepoIndex.model_validate(get_json(_db(), inp.index_key))
    stats = IndexStats()
    index = update_index(previous, _tree(inp.source), inp.paths, _caches(), stats=stats)
    return _ref(index, stats)


@activity.defn(name="refactor_index_retrieve")
@heartbeating
def retrieve(inp: RetrieveInput) -> RetrieveResult:
    """The bundle of indexed files for a directive or task, recorded in the blob store."""
    from prflow.refactor_index.search import retrieve as retrieve_bundle

    index = RepoIndex.model_validate(get_json(_db(), inp.index_key))
    bundle = retrieve_bundle(inp.query, index, _caches(), inp.settings)
    return RetrieveResult(bundle_key=put_json(_db(), bundle), paths=bundle.paths())


REFACTOR_INDEX_ACTIVITIES: list[Callable[..., Any]] = [index_snapshot, reindex_paths, retrieve]
