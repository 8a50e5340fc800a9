"""What the command launcher and the command fork server say to each other.

A command that finds the fork server (:mod:`prflow.cli.fork_server`) sends it one
request: a length-prefixed JSON header (arguments, environment, ``sys.path``, the
standard streams' encodings) with its standard streams and working directory
attached as file descriptors (``SCM_RIGHTS``). The server answers with JSON lines:
``{"pid": N}`` once the command runs forked, then ``{"exit": code}`` when it ended;
or ``{"refused": reason}``, and the launcher runs the command itself.

Standard library only (and :mod:`prflow.state_dirs`): the launcher imports this
before it knows whether it will need anything heavier.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import socket
import struct
import sys
from collections.abc import Mapping
from typing import Any

from prflow.code_stamp import code_root
from prflow.state_dirs import data_dir

UNFORKED_COMMANDS = frozenset({"server", "worker", "mcp"})
"""Long-lived commands: their start-up is no cost worth saving, and they should belong to
the process tree the user started."""

IMPORT_TIME_VARIABLES = frozenset(
    {
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TYPER_USE_RICH",
        "TYPER_STANDARD_TRACEBACK",
        "_TYPER_STANDARD_TRACEBACK",
    }
)
"""Variables (beside every ``PYTHON*``) that the interpreter or a preloaded library reads
once, at start-up or import: a command whose values differ from the server's would not
run as it would alone, so it is not forked."""

LIMITS = (
    "RLIMIT_AS",
    "RLIMIT_CORE",
    "RLIMIT_CPU",
    "RLIMIT_DATA",
    "RLIMIT_FSIZE",
    "RLIMIT_NOFILE",
    "RLIMIT_NPROC",
    "RLIMIT_STACK",
)
"""Resource limits a forked command takes from its launcher (``ulimit`` in the user's shell)."""

_LENGTH = struct.Struct("!I")
MAX_HEADER_BYTES = 4 * 1024 * 1024
STREAM_FDS = 3  # stdin, stdout, stderr; the working directory's descriptor comes fourth


def server_address() -> str:
    """The abstract socket of the fork server for this user, data directory, code and
    environment (venv): another venv, checkout or ``PRFLOW_DATA_DIR`` never reaches it."""
    identity = "\0".join((str(os.getuid()), str(data_dir()), str(code_root()), sys.prefix))
    return "\0prflow-cli-" + hashlib.sha256(identity.encode()).hexdigest()[:32]


def import_time_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of ``environ`` that must match the server's for a forked command."""
    return {
        name: value
        for name, value in environ.items()
        if name.startswith("PYTHON") or name in IMPORT_TIME_VARIABLES
    }


def process_limits() -> dict[str, list[int]]:
    """This process's soft and hard limits, by :data:`LIMITS` name."""
    return {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS}


def limit_above(wanted: int, ceiling: int) -> bool:
    """Whether limit ``wanted`` is above ``ceiling`` (``RLIM_INFINITY`` is above all)."""
    if ceiling == resource.RLIM_INFINITY:
        return False
    return wanted == resource.RLIM_INFINITY or wanted > ceiling


def send_request(sock: socket.socket, header: dict[str, Any], fds: list[int]) -> None:
    """Send ``header`` with ``fds`` attached to its first bytes."""
    body = json.dumps(header).encode()
    message = _LENGTH.pack(len(body)) + body
    sent = socket.send_fds(sock, [message], fds)
    sock.sendall(message[sent:])


def receive_request(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The header and descriptors :func:`send_request` sent; descriptors are closed and
    :class:`ValueError` raised when the message is cut short or malformed."""
    data, fds, _flags, _address = socket.recv_fds(sock, 65536, STREAM_FDS + 1)
    try:
        while len(data) < _LENGTH.size:
            data += _receive_some(sock)
        (length,) = _LENGTH.unpack_from(data)
        if length > MAX_HEADER_BYTES:
            raise ValueError(f"request header of {length} bytes")
        while len(data) < _LENGTH.size + length:
            data += _receive_some(sock)
        header = json.loads(data[_LENGTH.size : _LENGTH.size + length])
        if not isinstance(header, dict) or len(fds) != STREAM_FDS + 1:
            raise ValueError("malformed request")
    except (ValueError, OSError):
        for fd in fds:
            os.close(fd)
        raise
    return header, fds


def _receive_some(sock: socket.socket) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise ValueError("request cut short")
    return chunk


def send_line(sock: socket.socket, message: dict[str, Any]) -> None:
    """One JSON line of the server's answer."""
    sock.sendall(json.dumps(message).encode() + b"\n")
