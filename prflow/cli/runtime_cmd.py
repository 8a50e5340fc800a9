"""``prflow server`` and ``prflow worker``: the Temporal side of prflow, run by hand.

Most commands need neither (they embed a dev server and a worker), but a
long refactor or an org-wide queue wants a server that outlives one command
and workers that can be restarted, scaled and killed independently.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from prflow.config import Settings, load_settings
from prflow.errors import UserError
from prflow.state_dirs import data_dir

if TYPE_CHECKING:
    from temporalio.client import Client
    from temporalio.runtime import Runtime as CoreRuntime

    from prflow.kinds import QueueRole
    from worker.devserver import DevServer

SERVER_HELP = "\n\n".join(
    [
        "Run the Temporal dev server (with its Web UI) in the foreground.",
        "Workflow history is kept in a SQLite file in the prflow data directory, so runs "
        "survive a restart. Other prflow commands and `prflow worker` use this server "
        "automatically when it runs on the embedded port (7233 unless configured). "
        "Ctrl-C stops it cleanly.",
        "Example: prflow server --port 7233 --ui-port 8233",
    ]
)

WORKER_HELP = "\n\n".join(
    [
        "Run prflow workers for every task queue (or those named by --queues) until Ctrl-C "
        "or SIGTERM.",
        "Connects to TEMPORAL_ADDRESS when set, otherwise to a `prflow server` running on "
        "this machine. On shutdown, running activities get a grace period to finish; "
        "whatever is cut short is retried by another worker, so stopping or killing a "
        "worker loses no work.",
        "Scale by resource: `--queues prflow` runs workflows, git and analysis; "
        "`--queues prflow-llm` only model calls (rate-limited fleet-wide by "
        "PRFLOW_TEMPORAL__LLM_MAX_ACTIVITIES_PER_SECOND); `--queues prflow-github` only "
        "GitHub writes. With --metrics-port, Prometheus metrics of the worker runtime and "
        "prflow's counters (runs, model spend, tokens, findings) are served on /metrics; with "
        "--health-port, /healthz and /readyz answer probes.",
        "Example: TEMPORAL_ADDRESS=temporal.internal:7233 prflow worker --queues prflow-llm "
        "--metrics-port 9464 --health-port 8081",
    ]
)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


server_app = typer.Typer(help=SERVER_HELP, invoke_without_command=True, no_args_is_help=False)


def register(app: typer.Typer) -> None:
    """Add the ``server`` (with ``status`` and ``stop``) and ``worker`` commands to the CLI."""
    server_app.callback(invoke_without_command=True)(server)
    server_app.command("status")(server_status)
    server_app.command("stop")(server_stop)
    app.add_typer(server_app, name="server")
    app.command("worker", help=WORKER_HELP)(worker)


def server_status() -> None:
    """Show the warm worker kept for repeat runs (started by the first embedded run).

    Example: prflow server status
    """
    from worker import warm

    state = warm.read_state()
    if state is None:
        typer.echo("no warm worker is running (the next embedded run starts one)")
        return
    age = time.time() - state.started_at
    typer.echo(f"warm worker pid {state.pid}, up {age:.0f}s, serving {state.queues['main']}")
    typer.echo(f"  frontend: {state.address}  Web UI: {state.ui_url or 'none'}")
    server = "its own dev server" if state.owns_server else "a dev server it did not start"
    typer.echo(f"  runs on {server}; exits after {state.idle_exit_seconds:.0f}s idle")


def server_stop() -> None:
    """Stop the warm worker (and the dev server it started) now. Example: prflow server stop"""
    from worker import warm

    with warm.start_lock():
        state = warm.read_state()
        if state is None:
            typer.echo("no warm worker is running")
            return
        if not warm.stop(state):
            raise UserError(
                f"the warm worker (pid {state.pid}) did not stop within 30s; runs in flight "
                "get time to finish, try again or kill it"
            )
    typer.echo(f"stopped the warm worker (pid {state.pid})")


def _stop_on_signals(notice: str) -> asyncio.Event:
    """An event set by Ctrl-C or SIGTERM, replacing KeyboardInterrupt for a clean stop."""
    stop = asyncio.Event()

    def request_stop() -> None:
        if not stop.is_set():
            typer.echo(notice)
        stop.set()

    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, request_stop)
    return stop


def server(
    ctx: typer.Context,
    port: Annotated[
        int | None,
        typer.Option("--port", help="Frontend (gRPC) port; default from settings (7233)."),
    ] = None,
    ui_port: Annotated[
        int | None,
        typer.Option("--ui-port", help="Web UI port; default from settings (8233)."),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="SQLite file for workflow history; default <data dir>/temporal.db."
        ),
    ] = None,
    headless: Annotated[bool, typer.Option("--headless", help="Do not serve the Web UI.")] = False,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from worker import devserver

    settings = load_settings()
    dev_server = devserver.DevServer(
        port=port or settings.temporal.embedded_port,
        ui_port=None if headless else (ui_port or settings.temporal.embedded_ui_port),
        db_path=db or data_dir() / "temporal.db",
        namespace=settings.temporal.namespace,
    )
    asyncio.run(_serve(dev_server))


async def _serve(dev_server: DevServer) -> None:
    stop = _stop_on_signals("Stopping the Temporal dev server ...")
    await dev_server.start()
    typer.echo(f"Temporal dev server running, history in {dev_server.db_path}")
    typer.echo(f"  frontend: {dev_server.address}  (TEMPORAL_ADDRESS={dev_server.address})")
    typer.echo(f"  Web UI:   {dev_server.ui_url or 'disabled (--headless)'}")
    typer.echo("Press Ctrl-C to stop.")
    stopped = asyncio.create_task(stop.wait())
    exited = asyncio.create_task(dev_server.wait())
    await asyncio.wait([stopped, exited], return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if exited.done():
        raise UserError(
            f"the Temporal dev server exited unexpectedly with status {exited.result()}: "
            f"see {dev_server.log_path}"
        )
    await dev_server.stop()
    await exited
    typer.echo("Stopped.")


async def _register_search_attributes(client: Client, namespace: str) -> None:
    """Make prflow's search attributes known to a cluster; warn if not allowed to."""
    from temporalio.service import RPCError

    from worker.search_attributes import ALL_KEYS, ensure_registered

    try:
        added = await ensure_registered(client, namespace)
    except RPCError as err:
        names = ", ".join(key.name for key in ALL_KEYS)
        typer.echo(
            f"warning: could not register search attributes ({err.message}); "
            f"add {names} to the namespace",
            err=True,
        )
        return
    if added:
        typer.echo(f"registered search attributes: {', '.join(added)}")


def worker(
    queues: Annotated[
        str | None,
        typer.Option(
            "--queues",
            help="Comma-separated task queues to serve (default: all three), e.g. "
            "prflow,prflow-llm.",
        ),
    ] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            "--metrics-port",
            min=1,
            max=65_535,
            help="Serve Prometheus metrics (worker runtime and prflow counters) on this port "
            "(/metrics); default PRFLOW_METRICS_PORT.",
        ),
    ] = None,
    health_port: Annotated[
        int | None,
        typer.Option(
            "--health-port",
            min=1,
            max=65_535,
            help="Serve /healthz (liveness) and /readyz (Temporal answers) on this port; "
            "default PRFLOW_HEALTH_PORT.",
        ),
    ] = None,
    wait_seconds: Annotated[
        float,
        typer.Option(
            "--wait-seconds",
            min=0,
            help="At start, keep trying to reach Temporal this long before giving up "
            "(a cluster starting alongside the workers).",
        ),
    ] = 60.0,
    grace_seconds: Annotated[
        float,
        typer.Option(
            "--grace-seconds",
            help="On shutdown, how long running activities may finish before they are cancelled.",
        ),
    ] = 30.0,
) -> None:
    from worker.runner import roles_for

    settings = load_settings()
    roles = roles_for(queues, settings) if queues is not None else None
    ports = WorkerPorts(
        metrics=metrics_port or settings.metrics_port,
        health=health_port or settings.health_port,
    )
    asyncio.run(_work(settings, ports, grace_seconds, roles, wait_seconds))


@dataclass(frozen=True)
class WorkerPorts:
    metrics: int | None
    health: int | None


async def _connect_patiently(
    settings: Settings, runtime: CoreRuntime | None, wait_seconds: float
) -> Client:
    """Connect to the configured cluster, retrying for ``wait_seconds`` while it starts."""
    from worker.client import connect

    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            return await connect(settings, runtime=runtime, within_seconds=5.0)
        except UserError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(2.0)


async def _work(
    settings: Settings,
    ports: WorkerPorts,
    grace_seconds: float,
    roles: list[QueueRole] | None,
    wait_seconds: float,
) -> None:
    from datetime import timedelta

    from worker.client import embedded_address, metrics_runtime
    from worker.health import serving_probes
    from worker.local_server import connect_local_server
    from worker.runner import running_workers

    stop = _stop_on_signals(
        f"prflow worker stopping: running activities get up to {grace_seconds:g}s to finish ..."
    )
    core_runtime = metrics_runtime(f"0.0.0.0:{ports.metrics}") if ports.metrics else None
    if settings.temporal.address:
        client = await _connect_patiently(settings, core_runtime, wait_seconds)
        address = settings.temporal.address
        await _register_search_attributes(client, settings.temporal.namespace)
    else:
        address = embedded_address(settings)
        local = await connect_local_server(settings, runtime=core_runtime)
        if local is None:
            raise UserError(
                f"no Temporal server at {address}: run `prflow server` in another "
                "terminal, or set TEMPORAL_ADDRESS to your cluster"
            )
        client = local

    async with running_workers(
        client, settings, graceful_shutdown=timedelta(seconds=grace_seconds), roles=roles
    ) as workers:
        queues = ", ".join(w.task_queue for w in workers)
        probes = (
            serving_probes(client, workers, ports.health)
            if ports.health
            else contextlib.nullcontext()
        )
        async with probes:
            typer.echo(f"prflow worker serving {queues} on {address} ({client.namespace})")
            await stop.wait()
    typer.echo("prflow worker stopped.")
