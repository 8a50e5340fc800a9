"""The Temporal a CLI command runs against, with zero setup by default.

Resolution order:

1. ``TEMPORAL_ADDRESS`` set: a cluster, used as is; its own ``prflow worker``
   fleet serves the configured queues.
2. Otherwise, a warm worker (see :mod:`worker.warm`) started with the same
   settings, secrets and code: the command is only a client on its queues.
   The first such command starts it (unless ``warm_seconds`` is 0).
3. Otherwise the command serves itself: it reuses a dev server on the embedded
   port (``prflow server``, or a warm worker of another environment) or starts
   one, which stops when the last command using it finishes, and runs
   in-process workers on task queues private to this process, so two commands
   with different environments (one with an API key, one without) never serve
   each other's activities.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from temporalio.client import Client

from prflow.config import Settings
from prflow.last_words import at_forced_exit
from prflow.state_dirs import data_dir
from prflow.task_queues import QueueNames, queue_names
from worker import server_users, warm
from worker.client import connect, embedded_address
from worker.local_server import connect_local_server
from worker.ports import port_is_free

if TYPE_CHECKING:  # the server and worker machinery load only when a command needs them
    from worker.devserver import DevServer


@dataclass(frozen=True)
class Runtime:
    """A connected client, where it points, and the settings (queues) a run must use."""

    client: Client
    address: str
    ui_url: str | None
    embedded: bool
    settings: Settings
    serves_queue: bool = False  # a worker this command started or found serves the run's queues

    @property
    def task_queue(self) -> str:
        return self.settings.temporal.task_queue

    @property
    def queues(self) -> QueueNames:
        """Where runs started through this runtime go (their starter attaches these)."""
        return queue_names(self.settings)


def embedded_ui_url(settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.temporal.embedded_ui_port}"


WORKER_LOG = "cli-worker.log"


def log_worker_to_file() -> None:
    """Send the in-process worker's log (activity failures with tracebacks) to a file.

    A command's stderr is for its progress and one-line errors; an activity that
    failed and was retried is worth a record, not a traceback on the user's screen.
    """
    directory = data_dir()
    logger = logging.getLogger("temporalio")
    if any(isinstance(h, logging.FileHandler) for h in logger.handlers):
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(directory / WORKER_LOG, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False


def private_queues(settings: Settings) -> Settings:
    """A copy of ``settings`` whose task queues only this process serves."""
    private = settings.model_copy(deep=True)
    base = f"prflow-cli-{os.getpid()}-{secrets.token_hex(3)}"
    private.temporal.task_queue = base
    private.temporal.llm_task_queue = f"{base}-llm"
    private.temporal.github_task_queue = f"{base}-github"
    return private


def _on_warm_queues(settings: Settings, state: warm.WarmState) -> Settings:
    shared = settings.model_copy(deep=True)
    shared.temporal.task_queue = state.queues["main"]
    shared.temporal.llm_task_queue = state.queues["llm"]
    shared.temporal.github_task_queue = state.queues["github"]
    return shared


async def _is_busy(settings: Settings, state: warm.WarmState) -> bool:
    """Whether a warm worker still has runs in flight (then it must not be replaced)."""
    try:
        client = await connect(settings, state.address, within_seconds=5.0)
        query = f'TaskQueue = "{state.queues["main"]}" AND ExecutionStatus = "Running"'
        return (await client.count_workflows(query)).count > 0
    except Exception:
        return True  # cannot tell: leave it alone


async def _warm_worker_for(settings: Settings) -> warm.WarmState | None:
    """A warm worker serving exactly these settings, started if allowed and none runs.

    Called under :func:`warm.start_lock`. A warm worker of another environment
    is replaced only when it is idle and no other command uses its server;
    otherwise this command serves itself on that server.
    """
    wanted = warm.fingerprint(settings)
    state = warm.read_state()
    if state is not None and state.fingerprint == wanted:
        warm.touch()
        return state
    if settings.temporal.warm_seconds <= 0:
        return None
    if state is not None and (
        server_users.others_using() or await _is_busy(settings, state) or not warm.stop(state)
    ):
        return None
    if not port_is_free(settings.temporal.embedded_port):
        return None  # a `prflow server` runs here: keep the one-shot behaviour
    state = warm.spawn(settings)
    warm.touch()
    return state


async def _local_server(settings: Settings) -> tuple[Client, DevServer | None]:
    """The dev server on the embedded port, and the server object if this call started it."""
    existing = await connect_local_server(settings)
    if existing is not None:
        return existing, None
    from worker.devserver import DevServer

    server = DevServer.from_settings(settings)
    await server.start()
    try:
        return await connect(settings, server.address), server
    except BaseException:
        await server.stop()
        raise


async def _leave(use: server_users.ServerUse, started: DevServer | None) -> None:
    """Let go of the local server once this command's workers have stopped.

    The server this command started stops only if no other command uses it;
    otherwise it is handed over and the last command to leave stops it.
    """
    use.leave()
    with warm.start_lock():
        if started is None:
            server_users.stop_handed_over_if_unused()
        elif server_users.others_using():
            server_users.hand_over(started)
        else:
            await started.stop()


@contextlib.asynccontextmanager
async def temporal_runtime(
    settings: Settings,
    *,
    with_worker: bool = True,
    worker_on_cluster: bool = False,
) -> AsyncIterator[Runtime]:
    """Connect (starting what is needed) and make sure something serves the run's queues.

    ``with_worker`` lets the command serve its own queues when nothing else
    does; against a configured cluster it does so only if ``worker_on_cluster``.
    On exit, workers this call started stop first, then any server it started,
    unless another command still uses that server (see :mod:`worker.server_users`).
    """
    async with contextlib.AsyncExitStack() as stack:
        if settings.temporal.address:
            client = await connect(settings)
            serve = with_worker and worker_on_cluster
            if serve:
                from worker.runner import running_workers

                await stack.enter_async_context(running_workers(client, settings))
            yield Runtime(
                client, settings.temporal.address, None, False, settings, serves_queue=serve
            )
            return
        with warm.start_lock():  # deciding and joining is atomic among commands
            state = await _warm_worker_for(settings) if with_worker else None
            started: DevServer | None = None
            if state is not None:
                client = await connect(settings, state.address)
            else:
                client, started = await _local_server(settings)
            use = server_users.join()
        if started is not None:
            # Ctrl-C may end the process before _leave is done: the next command stops it.
            stack.callback(at_forced_exit(lambda: server_users.hand_over(started)))
        stack.push_async_callback(_leave, use, started)
        from worker.orphans import sweep_orphans

        await sweep_orphans(client)  # runs of commands that died: nothing serves them
        if state is not None:
            yield Runtime(
                client,
                state.address,
                state.ui_url,
                True,
                _on_warm_queues(settings, state),
                serves_queue=True,
            )
            warm.touch()
            return
        own = private_queues(settings) if with_worker else settings
        if with_worker:
            log_worker_to_file()
            from worker.runner import running_workers

            await stack.enter_async_context(running_workers(client, own))
        yield Runtime(
            client,
            embedded_address(settings),
            embedded_ui_url(settings),
            True,
            own,
            serves_queue=with_worker,
        )
