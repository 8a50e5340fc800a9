"""What the refactor end-to-end and chaos benches run on: a real package with its own tests, a
scripted model that renames a helper across it, Temporal, and a ``prflow worker`` subprocess.

The repository is the sdist of ``itsdangerous`` 2.2.0 (Pallets; 8 modules, 6 test
files, docs), fetched with ``pip download`` and committed once with a fixed date.
The directive renames its ``want_bytes`` helper to ``to_bytes`` across the package
and its tests (21 occurrences in 6 files) and notes it in the changelog. The
model's turns are computed from the files' real text: each edit quotes the
smallest window of lines that is unique at the time it applies, as a careful
model would, so the exact-unique edit semantics accept every one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from prflow.config import Settings, cached_settings
from tests.support.cli_runs import free_port
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.fixtures_temporal import WorkerProcess, child_environment, isolated_settings
from tests.support.sample_repos import GIT_ENV, git
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn
from worker.devserver import DevServer

PACKAGE, VERSION = "itsdangerous", "2.2.0"
OLD, NEW = "want_bytes", "to_bytes"
DIRECTIVE = (
    f"Rename the {OLD} helper of itsdangerous.encoding to {NEW} across the package and its "
    "tests, and note the rename in CHANGES.rst"
)
PLANNER_KEY = "You turn one refactor directive into a plan"
SRC = "src/itsdangerous"
PLAN_SUMMARY = "Rename the definition and every caller; then tests, changelog."
TASKS: list[dict[str, Any]] = [
    {
        "id": "rename",
        "title": f"Rename {OLD} to {NEW} in the package",
        "files": [
            f"{SRC}/encoding.py",
            f"{SRC}/__init__.py",
            f"{SRC}/signer.py",
            f"{SRC}/serializer.py",
            f"{SRC}/timed.py",
        ],
        "depends_on": [],
    },
    {
        "id": "tests",
        "title": f"Use {NEW} in the tests",
        "files": ["tests/test_itsdangerous/test_encoding.py"],
        "depends_on": ["rename"],
    },
    {
        "id": "changes",
        "title": "Note the rename in CHANGES.rst",
        "files": ["CHANGES.rst"],
        "depends_on": ["rename"],
        "critical": False,
    },
]


def fetch_repo(work: Path) -> Path:
    """The package's sdist as a git repository (made once, reused)."""
    repo = work / f"{PACKAGE}-{VERSION}"
    if (repo / ".git").is_dir():
        return repo
    downloads = work / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / f"{PACKAGE}-{VERSION}.tar.gz"
    if not archive.is_file():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(downloads),
                f"{PACKAGE}=={VERSION}",
            ],
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    env = {
        **os.environ,
        **GIT_ENV,
        "GIT_AUTHOR_DATE": "2024-04-16T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-04-16T00:00:00Z",
    }
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", f"{PACKAGE} {VERSION}"], check=True, env=env
    )
    return repo


def rename_edits(path: str, text: str, old: str, new: str) -> list[dict[str, str]]:
    """Edits renaming every ``old`` in ``text``, each quoting a window of lines unique in the
    text as the earlier edits left it (edits of a batch apply in order)."""
    edits: list[dict[str, str]] = []
    current = text
    while old in current:
        lines = current.splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if old in line)
        for reach in range(len(lines)):
            window = "".join(lines[max(0, at - reach) : at + reach + 1])
            if current.count(window) == 1:
                break
        replaced = window.replace(old, new)
        edits.append(
            {"old_string": window, "new_string": replaced, "reason": f"rename {old} to {new}"}
        )
        current = current.replace(window, replaced, 1)
    return edits


def script(repo: Path) -> dict[str, list[Turn]]:
    """The planner's plan and each executor's read, edits and finish, from the real files."""
    tasks = [{**t, "instructions": f"{t['title']}; keep behaviour identical."} for t in TASKS]
    routes: dict[str, list[Turn]] = {
        PLANNER_KEY: [
            Turn(tool_uses=[ToolUse("search_code", {"pattern": OLD})]),
            Turn(
                tool_uses=[
                    ToolUse(
                        "submit_refactor_plan",
                        {
                            "summary": PLAN_SUMMARY,
                            "tasks": tasks,
                        },
                    )
                ]
            ),
        ]
    }
    for task in tasks:
        uses = []
        for path in task["files"]:
            text = (repo / path).read_text()
            if path == "CHANGES.rst":
                head = text.split("\n\n", 1)[0]
                edits = [
                    {
                        "old_string": head,
                        "new_string": f"{head}\n\n-   Rename ``{OLD}`` to ``{NEW}``.",
                        "reason": "changelog",
                    }
                ]
            else:
                edits = rename_edits(path, text, OLD, NEW)
            uses.append(ToolUse("edit_file", {"path": path, "edits": edits}))
        routes[f"(id {task['id']}, attempt 1)"] = [
            Turn(tool_uses=[ToolUse("read_file", {"path": task["files"][0]})]),
            Turn(tool_uses=uses),
            Turn(tool_uses=[ToolUse("finish_task", {"done": True, "summary": task["title"]})]),
        ]
    return routes


@dataclass
class Stage:
    client: Client
    settings: Settings
    model: ScriptedAnthropic
    worker: WorkerProcess
    repo: Path


def point_prflow_at(state: Path, model: ScriptedAnthropic) -> None:
    os.environ.update(
        PRFLOW_DATA_DIR=str(state / "data"),
        PRFLOW_CACHE_DIR=str(state / "cache"),
        PRFLOW_DATABASE_URL=f"sqlite:///{state / 'prflow.db'}",
        ANTHROPIC_BASE_URL=model.url,
        ANTHROPIC_API_KEY=TEST_API_KEY,
    )
    for name in ("DATABASE_URL", "TEMPORAL_ADDRESS"):
        os.environ.pop(name, None)
    cached_settings.cache_clear()


@contextlib.asynccontextmanager
async def worker_stage(
    state: Path, model: ScriptedAnthropic
) -> AsyncIterator[tuple[Client, Settings, WorkerProcess]]:
    """A Temporal dev server and a ``prflow worker`` subprocess with prflow's state under
    ``state`` (made afresh), talking to ``model``; both stopped on exit."""
    shutil.rmtree(state, ignore_errors=True)
    async with contextlib.AsyncExitStack() as stack:
        point_prflow_at(state, model)
        server = DevServer(port=free_port(), ui_port=None, db_path=state / "temporal.db")
        await asyncio.to_thread(state.mkdir, parents=True, exist_ok=True)
        await server.start()
        stack.push_async_callback(server.stop)
        client = await Client.connect(server.address, data_converter=pydantic_data_converter)
        settings = isolated_settings(server.address)
        worker = WorkerProcess(child_environment(settings), state / "worker.log")
        await worker.start()

        async def stop() -> None:
            if worker.running:
                try:
                    await worker.stop()
                except TimeoutError:
                    worker.kill()

        stack.push_async_callback(stop)
        yield client, settings, worker


@contextlib.asynccontextmanager
async def refactor_stage(root: Path) -> AsyncIterator[Stage]:
    """Temporal, the scripted model and a worker process under ``root``; all stopped on exit."""
    repo = fetch_repo(root / "repos")
    with ScriptedAnthropic() as model:
        model.route(script(repo))
        async with worker_stage(root / "state", model) as (client, settings, worker):
            yield Stage(client=client, settings=settings, model=model, worker=worker, repo=repo)
