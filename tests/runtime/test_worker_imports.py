"""A worker starts without the libraries only other kinds' activities use.

The first ``prflow impact`` on a fresh machine waits for the warm worker to
serve, so everything the worker imports to register its workflows and
activities is on that command's clock. PyGithub (with requests, PyJWT,
cryptography, PyNaCl), numpy and BM25, PyYAML, pathspec, markdown-it and
SQLAlchemy's Postgres dialect load when an activity that needs them first
runs. Checked in a fresh interpreter that builds the real workers against the
session's dev server (building one validates every workflow in the sandbox);
``bench.impact.incremental`` measures the time.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from prflow.config import Settings
from tests.support.fixtures_temporal import child_environment
from worker.registry import activities_for, activity_name, queue_names

pytestmark = pytest.mark.temporal

DEFERRED = (
    "github",  # PyGithub: GitHub activities, none of which a local impact run calls
    "requests",
    "jwt",
    "cryptography",
    "nacl",
    "numpy",  # the refactor index's embeddings and retrieval
    "rank_bm25",
    "yaml",  # docsync's front matter and config documents
    "pathspec",
    "markdown_it",
    "sqlalchemy.dialects.postgresql",  # a store on SQLite never needs it
)

_BUILD_WORKERS = """
import asyncio, json, sys
import worker.warm  # the warm worker's entry point, then what its _serve imports
from prflow.config import load_settings
from worker.client import connect
from worker.devserver import DevServer
from worker.local_server import connect_local_server
from worker.registry import activities_for, activity_name, queue_names
from worker.runner import build_workers

async def main() -> None:
    settings = load_settings()
    client = await connect(settings)
    workers = build_workers(client, settings)
    names = sorted(
        activity_name(function)
        for queue in queue_names(settings).values()
        for function in activities_for(queue, settings)
    )
    print(json.dumps({"modules": sorted(sys.modules), "workers": len(workers), "names": names}))

asyncio.run(main())
"""


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m in names or m.startswith(tuple(f"{n}." for n in names)))


def test_the_worker_starts_without_libraries_only_other_kinds_use(
    temporal_settings: Settings,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _BUILD_WORKERS],
        capture_output=True,
        text=True,
        check=False,
        env=child_environment(temporal_settings),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    modules = set(report["modules"])
    assert report["workers"] == 3  # main, LLM and GitHub queues
    assert "temporalio.worker" in modules and "workflows.impact" in modules
    every = sorted(
        activity_name(function)
        for queue in queue_names(temporal_settings).values()
        for function in activities_for(queue, temporal_settings)
    )
    assert report["names"] == every  # every activity still registered, GitHub's included
    assert "github_upsert_comment" in report["names"]
    assert _loaded(modules, DEFERRED) == []
