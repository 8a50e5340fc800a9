"""The dev server already on the embedded port, if there is one prflow may use.

Shared by the commands that serve themselves (:mod:`worker.embedded`) and the
warm worker (:mod:`worker.warm`), which :mod:`worker.embedded` starts: its own
module, so neither imports the other back.
"""

from __future__ import annotations

import asyncio
import os

from temporalio.client import Client
from temporalio.runtime import Runtime as TemporalCoreRuntime

from prflow.config import Settings
from prflow.errors import UserError
from prflow.state_dirs import data_dir
from worker import server_owner
from worker.client import connect, embedded_address
from worker.ports import port_is_free


async def connect_local_server(
    settings: Settings, *, runtime: TemporalCoreRuntime | None = None
) -> Client | None:
    """Client for a dev server already on the embedded port; None when the port is free.

    A port that is taken by something that is not Temporal is a user error:
    we must not start a second server on it, and cannot use it either.
    """
    from worker.devserver import frontend_port_in_use_error
    from worker.search_attributes import ensure_registered

    port = settings.temporal.embedded_port
    if port_is_free(port):
        return None
    try:
        client = await connect(
            settings, embedded_address(settings), runtime=runtime, within_seconds=5.0
        )
    except UserError as err:
        raise frontend_port_in_use_error(port) from err
    owner = await server_owner.read(client, settings.temporal.namespace)
    if owner is not None and not await asyncio.to_thread(_usable, owner, port):
        return None  # it was stopped: the caller starts a server of its own
    await ensure_registered(client, settings.temporal.namespace)
    return client


def _usable(owner: server_owner.Owner, port: int) -> bool:
    """Whether a server prflow started, found on the embedded port, is this data directory's
    and still has its history file; a server whose file is gone is stopped (False)."""
    ours = os.path.abspath(data_dir())
    gone = not owner.db_path.exists()
    if gone and server_owner.stop_dead(owner, port):
        return False
    if gone:
        raise UserError(
            f"the Temporal dev server on port {port} lost its history file {owner.db_path} and "
            f"cannot be stopped from here: stop it (pid {owner.pid}) or set "
            "PRFLOW_TEMPORAL__EMBEDDED_PORT to a free port"
        )
    if owner.data_dir != ours:
        raise UserError(
            f"the Temporal dev server on port {port} belongs to data directory "
            f"{owner.data_dir}, not {ours}: use that PRFLOW_DATA_DIR, or give this "
            "one its own server with PRFLOW_TEMPORAL__EMBEDDED_PORT (and "
            "PRFLOW_TEMPORAL__EMBEDDED_UI_PORT) set to free ports"
        )
    return True
