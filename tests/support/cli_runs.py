"""Run the installed ``prflow`` console script the way a user does, and keep what they see.

End-to-end tests start ``prflow`` as a subprocess with stdout and stderr as
pipes (not a terminal, like a CI log) and an environment built here: either a
client-only one aimed at the session's Temporal dev server (a ``prflow worker``
subprocess must serve its task queues), or an embedded one with no Temporal
configured at all, in which ``prflow`` starts its own dev server and worker.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from prflow.config import Settings
from tests.support.fixtures_temporal import child_environment, prflow_script
from tests.support.shared_test_envs import share_test_envs

CLI_TIMEOUT_SECONDS = 120.0

# Set in a developer's shell, these would change what the child process does.
_AMBIENT = ("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "DATABASE_URL", "ANTHROPIC_API_KEY")


@dataclass(frozen=True)
class CliRun:
    """Exit status and both output streams of one ``prflow`` invocation."""

    code: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]

    def describe(self) -> str:
        """For assertion messages: everything the user saw."""
        return f"exit {self.code}\n--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"


async def run_prflow(
    *args: str,
    env: Mapping[str, str],
    cwd: Path | None = None,
) -> CliRun:
    """Run ``prflow ARGS...`` to completion with stdin closed and both outputs captured."""
    process = await asyncio.create_subprocess_exec(
        str(prflow_script()),
        *args,
        env=dict(env),
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(CLI_TIMEOUT_SECONDS):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return CliRun(process.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _private_state(env: dict[str, str], home: Path) -> dict[str, str]:
    env["PRFLOW_DATA_DIR"] = str(home / "data")
    env["PRFLOW_CACHE_DIR"] = str(home / "cache")
    share_test_envs(home / "cache")
    env["PRFLOW_DATABASE_URL"] = f"sqlite:///{home / 'prflow.db'}"
    return env


def client_environment(settings: Settings, home: Path) -> dict[str, str]:
    """Env for ``prflow`` against ``settings``' Temporal server, state kept under ``home``.

    The CLI and its worker must share it: the worker writes reports to the
    ledger database the CLI then reads them from.
    """
    env = child_environment(settings)
    for name in _AMBIENT:
        if name != "TEMPORAL_ADDRESS":
            env.pop(name, None)
    return _private_state(env, home)


def embedded_environment(
    home: Path, port: int, ui_port: int, *, warm_seconds: float = 0
) -> dict[str, str]:
    """Env of a user with nothing configured: ``prflow`` must bring its own Temporal.

    The warm worker is off unless ``warm_seconds`` asks for it, so tests do not
    leave servers behind; tests of warm starts stop theirs.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("PRFLOW_") and key not in _AMBIENT
    }
    env["PRFLOW_TEMPORAL__EMBEDDED_PORT"] = str(port)
    env["PRFLOW_TEMPORAL__EMBEDDED_UI_PORT"] = str(ui_port)
    env["PRFLOW_TEMPORAL__WARM_SECONDS"] = str(warm_seconds)
    return _private_state(env, home)
