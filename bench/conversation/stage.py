"""Everything the conversation bench talks to, real and on loopback.

- the Temporal dev server the CLI embeds, its history in a SQLite file so a SIGKILL
  and a restart on the same port keep every workflow;
- a ``prflow worker`` subprocess (SIGKILLed and restarted by the bench);
- the scripted Messages API of the test suite: every reply's agent is answered by
  one ``submit_reply`` turn after a fixed delay (2 s: a model that thinks), a fix's
  planner and executor by their scripted plan and edit;
- the repositories' tests, run by ``/prflow fix`` without a sandbox (``[sandbox] mode =
  "none"``: bwrap needs user namespaces a container may not grant) with the command
  typed out;
- the stateful loopback GitHub of the test suite;
- the real webhook app on uvicorn. Its queue hand-off (``pull_request`` deliveries
  start the org queue's jobs) is counted, not run: the bench measures the
  conversation, ``bench.queue`` the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.chaos import stage as chaos_stage
from bench.conversation.repos import TEST_COMMAND
from prflow.config import Settings, cached_settings
from prflow.queue.events import PrEvent
from prflow.queue.state import QueueNames
from prflow.webhook.app import Receiver
from tests.queue import receiver as receiver_module
from tests.support.cli_runs import free_port
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN
from tests.support.fixtures_temporal import WorkerProcess, child_environment, isolated_settings
from tests.support.scripted_anthropic import ScriptedAnthropic
from worker.devserver import DevServer


class ConversationOnlyReceiver(Receiver):
    """The webhook app's receiver with the queue's hand-off counted instead of started."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.queue_events = 0

    async def deliver(self, event: PrEvent) -> None:
        self.queue_events += 1


@dataclass
class Stage:
    root: Path
    settings: Settings
    model: ScriptedAnthropic
    github: FakeGitHub
    server: DevServer
    worker: WorkerProcess
    client: Client
    url: str = ""
    receiver: ConversationOnlyReceiver | None = None
    restarts: list[str] = field(default_factory=list)
    crash_times: list[datetime] = field(default_factory=list)
    crashing: asyncio.Lock = field(default_factory=asyncio.Lock)
    """One crash at a time: a worker starting is never killed by the next crash's restart."""

    @property
    def queues(self) -> QueueNames:
        t = self.settings.temporal
        return QueueNames(main=t.task_queue, llm=t.llm_task_queue, github=t.github_task_queue)

    async def kill_worker(self) -> None:
        """SIGKILL the worker, start a fresh one at once."""
        async with self.crashing:
            self.crash_times.append(datetime.now(UTC))
            await self.worker.restart()
            self.restarts.append("worker")

    async def kill_server(self) -> None:
        """SIGKILL the Temporal server and start it again on the same port and history."""
        async with self.crashing:
            process = self.server._process  # the bench's own crash
            assert process is not None
            self.crash_times.append(datetime.now(UTC))
            process.kill()
            await self.server.wait()
            self.server = _server(self.root, self.server.port)
            await self.server.start()
            self.restarts.append("server")


def _server(root: Path, port: int) -> DevServer:
    return DevServer(port=port, ui_port=None, db_path=root / "temporal.db")


def point_prflow_at(state: Path, model: ScriptedAnthropic, github: FakeGitHub) -> None:
    """The chaos bench's private state and loopback services, plus how ``/prflow fix`` runs
    the bench repositories' tests: typed out, as an organisation sets ``[refactor]
    test_command``, and unsandboxed (bwrap needs user namespaces that a container may not
    grant; the tests are the bench's own)."""
    chaos_stage.point_prflow_at(state, model, github)
    os.environ.update(PRFLOW_REFACTOR__TEST_COMMAND=TEST_COMMAND, PRFLOW_SANDBOX__MODE="none")
    cached_settings.cache_clear()


@contextlib.asynccontextmanager
async def conversation_stage(root: Path) -> AsyncIterator[Stage]:
    """Start the servers, the worker and the webhook app under ``root``; stop all on exit."""
    async with contextlib.AsyncExitStack() as stack:
        model = stack.enter_context(ScriptedAnthropic())
        github = FakeGitHub().start()
        stack.callback(github.stop)
        github.add_user(FAKE_GITHUB_LOGIN, token=FAKE_GITHUB_TOKEN)
        point_prflow_at(root / "state", model, github)
        server = _server(root, free_port())
        await server.start()
        client = await Client.connect(server.address, data_converter=pydantic_data_converter)
        settings = isolated_settings(server.address)
        worker = WorkerProcess(child_environment(settings), root / "worker.log")
        stage = Stage(root, settings, model, github, server, worker, client)
        stack.push_async_callback(_stop_server, stage)
        await worker.start()
        stack.push_async_callback(_stop_worker, stage)

        async def connect() -> Client:
            return client

        receiver = ConversationOnlyReceiver(
            secret=receiver_module.SECRET, queues=stage.queues, jobs=(), connect=connect
        )
        stage.receiver = receiver
        stage.url = await stack.enter_async_context(receiver_module.serving_app(receiver))
        yield stage


async def _stop_worker(stage: Stage) -> None:
    if stage.worker.running:
        try:
            await stage.worker.stop()
        except TimeoutError:
            stage.worker.kill()


async def _stop_server(stage: Stage) -> None:
    await stage.server.stop()
