"""Is a loopback port free? Asked before starting a server and by every embedded command.

Kept apart from :mod:`worker.devserver` so a command that only checks a port
does not import the server machinery.
"""

from __future__ import annotations

import errno
import socket

LOOPBACK = "127.0.0.1"


def port_is_free(port: int, host: str = LOOPBACK) -> bool:
    """True when nothing listens on ``host:port`` (same reuse rules as the Go server)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return False
            raise
    return True
