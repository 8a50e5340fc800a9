"""Whether commands may be forked from a warm fork server on this machine.

One switch for the three places that ask: the launcher (hand the command over?), the
fork server (serve at all?) and the warm worker (start one?). Standard library only.
"""

from __future__ import annotations

import os
import sys

DISABLE_ENV = "PRFLOW_FORK_SERVER"
"""``PRFLOW_FORK_SERVER=0`` runs every command in its own process, without the server."""


def forks_enabled() -> bool:
    """Linux (the server listens on an abstract socket), and not switched off."""
    return sys.platform == "linux" and os.environ.get(DISABLE_ENV, "1") != "0"
