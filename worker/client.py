"""Connecting to Temporal the one way every prflow process must: pydantic payloads.

Workflows exchange pydantic models, so a client built with the default JSON
converter would fail on the first report. Going through :func:`connect` keeps
the converter identical in the CLI, the workers, the tests and the replayer.
"""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    PrometheusConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)

from prflow.config import Settings
from prflow.errors import UserError


def embedded_address(settings: Settings) -> str:
    """Frontend address of the local dev server that ``prflow server`` starts."""
    return f"127.0.0.1:{settings.temporal.embedded_port}"


def configured_address(settings: Settings) -> str:
    """The cluster named by ``TEMPORAL_ADDRESS``/settings, else the local dev server."""
    return settings.temporal.address or embedded_address(settings)


CORE_LOGGER = "temporalio.core"


def _core_logging() -> LoggingConfig:
    """The core SDK's log lines through Python logging (stderr, or the worker's log file).

    By default the Rust core prints its WARN lines (a retried call while a server
    restarts) to stdout, where they corrupt a JSON or SARIF report.
    """
    return LoggingConfig(
        filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
        forwarding=LogForwardingConfig(logger=logging.getLogger(CORE_LOGGER)),
    )


@lru_cache(maxsize=1)
def quiet_runtime() -> Runtime:
    """The process's Temporal core runtime when no other is asked for: nothing on stdout."""
    return Runtime(telemetry=TelemetryConfig(logging=_core_logging()))


def metrics_runtime(bind_address: str) -> Runtime:
    """A Temporal core runtime that serves Prometheus metrics on ``bind_address``.

    Create at most one per process: every client and worker built on it
    reports into the same ``/metrics`` endpoint.
    """
    return Runtime(
        telemetry=TelemetryConfig(
            logging=_core_logging(), metrics=PrometheusConfig(bind_address=bind_address)
        )
    )


async def connect(
    settings: Settings,
    address: str | None = None,
    *,
    runtime: Runtime | None = None,
    within_seconds: float = 15.0,
) -> Client:
    """Connect to ``address`` (default: the configured cluster) in the configured namespace.

    ``within_seconds`` bounds the handshake: a port held by something that
    accepts TCP but never speaks gRPC would otherwise stall for half a minute.
    """
    target = address or configured_address(settings)
    try:
        async with asyncio.timeout(within_seconds):
            return await Client.connect(
                target,
                namespace=settings.temporal.namespace,
                data_converter=pydantic_data_converter,
                runtime=runtime or quiet_runtime(),
            )
    except (RuntimeError, TimeoutError, ValueError) as err:
        if address is None and settings.temporal.address:
            raise UserError(
                f"cannot reach Temporal at {target} (TEMPORAL_ADDRESS): check the address and "
                "that the cluster is up, or unset TEMPORAL_ADDRESS to use the embedded server"
            ) from err
        raise UserError(
            f"cannot reach Temporal at {target}: start one with `prflow server`, "
            "or set TEMPORAL_ADDRESS to a running cluster"
        ) from err
