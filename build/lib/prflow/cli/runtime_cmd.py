"""``prflow server`` and ``prflow worker``: the Temporal side of prflow, run by hand.

Most commands need neither (they embed a dev server and a worker), but a
long refactor or an org-wide queue wants a server that outlives one command
and workers that can be restarted, scaled and killed independently.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from prflow.config import Settings, data_dir, load_settings
from prflow.errors import UserError

if TYPE_CHECKING:
    from temporalio.client import Client

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
        "Run prflow workers for every task queue until Ctrl-C or SIGTERM.",
        "Connects to TEMPORAL_ADDRESS when set, otherwise to a `prflow server` running on "
        "this machine. On shutdown, running activities get a grace period to finish; "
        "whatever is cut short is retried by another worker, so stopping or killing a "
        "worker loses no work.",
        "Example: TEMPORAL_ADDRESS=temporal.internal:7233 prflow worker --metrics-port 9464",
    ]
)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def register(app: typer.Typer) -> None:
    """Add the ``server`` and ``worker`` commands to the CLI."""
    app.command("server", help=SERVER_HELP)(server)
    app.command("worker", help=WORKER_HELP)(worker)


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

    from worker.search_attributes import ensure_registered

    try:
        added = await ensure_registered(client, namespace)
    except RPCError as err:
        typer.echo(
            f"warning: could not register search attributes ({err.message}); "
            "add Repo, PR, Kind, Phase, RiskScore, RiskLevel and CostUSD to the namespace",
            err=True,
        )
        return
    if added:
        typer.echo(f"registered search attributes: {', '.join(added)}")


def worker(
    metrics_port: Annotated[
        int | None,
        typer.Option(
            "--metrics-port",
            help="Serve Prometheus metrics of the worker runtime on this port (/metrics).",
        ),
    ] = None,
    grace_seconds: Annotated[
        float,
        typer.Option(
            "--grace-seconds",
            help="On shutdown, how long running activities may finish before they are cancelled.",
        ),
    ] = 30.0,
) -> None:
    asyncio.run(_work(load_settings(), metrics_port, grace_seconds))


async def _work(settings: Settings, metrics_port: int | None, grace_seconds: float) -> None:
    from datetime import timedelta

    from temporalio.worker import Worker

    from worker.client import connect, embedded_address, metrics_runtime
    from worker.embedded import connect_local_server
    from worker.runner import run_workers

    stop = _stop_on_signals(
        f"prflow worker stopping: running activities get up to {grace_seconds:g}s to finish ..."
    )
    core_runtime = metrics_runtime(f"0.0.0.0:{metrics_port}") if metrics_port else None
    if settings.temporal.address:
        client = await connect(settings, runtime=core_runtime)
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

    def announce(workers: list[Worker]) -> None:
        queues = ", ".join(w.task_queue for w in workers)
        typer.echo(f"prflow worker serving {queues} on {address} ({client.namespace})")

    await run_workers(
        client,
        settings,
        stop,
        graceful_shutdown=timedelta(seconds=grace_seconds),
        on_started=announce,
    )
    typer.echo("prflow worker stopped.")
