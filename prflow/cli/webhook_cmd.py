"""``prflow webhook``: serve the GitHub webhook receiver (Starlette on uvicorn)."""

from __future__ import annotations

import os
import socket
from typing import Annotated

import typer

from prflow.config import load_settings
from prflow.errors import UserError

SECRET_ENV = "PRFLOW_WEBHOOK_SECRET"
GRACE_SECONDS = 10

WEBHOOK_HELP = "\n\n".join(
    [
        "Serve the GitHub webhook receiver until Ctrl-C or SIGTERM.",
        "Verifies X-Hub-Signature-256 with the secret in PRFLOW_WEBHOOK_SECRET, maps "
        "pull_request (opened, synchronize, reopened, ready_for_review, closed) and "
        "issue_comment commands (/prflow impact, /prflow review) to the PR's queue workflow "
        "by signal-with-start, and answers at once: workers do the jobs. Point the GitHub "
        "webhook (content type application/json) at http://HOST:PORT/webhook. GET /healthz "
        "answers while the process serves, GET /readyz while Temporal answers too.",
        "Example: PRFLOW_WEBHOOK_SECRET=... TEMPORAL_ADDRESS=temporal:7233 "
        "prflow webhook --port 8000",
    ]
)


def register(app: typer.Typer) -> None:
    app.command("webhook", help=WEBHOOK_HELP)(webhook)


def webhook(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65_535, help="Port to listen on.")] = 8000,
) -> None:
    import uvicorn

    from prflow.queue.delivery import queue_names
    from prflow.queue.jobs import queue_kinds
    from prflow.registry import KINDS
    from prflow.webhook.app import Receiver, create_app
    from worker.client import connect

    secret = os.environ.get(SECRET_ENV, "").strip()
    if not secret:
        raise UserError(
            f"{SECRET_ENV} is not set: set it to the secret configured on the GitHub webhook "
            "(the receiver refuses unsigned deliveries)"
        )
    settings = load_settings()
    _check_port_free(host, port)
    receiver = Receiver(
        secret=secret,
        queues=queue_names(settings),
        jobs=list(queue_kinds(KINDS)),
        connect=lambda: connect(settings, within_seconds=5.0),
    )
    typer.echo(f"prflow webhook receiving on http://{host}:{port}/webhook", err=True)
    config = uvicorn.Config(
        create_app(receiver),
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=GRACE_SECONDS,
        access_log=False,
    )
    uvicorn.Server(config).run()


def _check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            raise UserError(
                f"cannot listen on {host}:{port} ({err.strerror}); pick another --port or stop "
                "what holds it"
            ) from None
