"""The last command out stops a handed-over dev server, and waits until it is gone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prflow.state_dirs import data_dir
from tests.support.cli_runs import free_port
from worker import server_users
from worker.ports import port_is_free

# Behaves like the dev server at shutdown: on SIGTERM it closes its port first and only
# lets go of its database file (exits) a little later. "start-dev" is in its command line.
SLOW_SERVER = """
import signal, socket, sys, time
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(sys.argv[1])))
listener.listen()
def stop(*_):
    listener.close()
    time.sleep(1.5)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
while True:
    time.sleep(0.1)
"""


def test_the_last_user_returns_only_once_the_server_process_has_exited(
    prflow_home: Path,
) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", SLOW_SERVER, str(port), "start-dev"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        data_dir().mkdir(parents=True, exist_ok=True)
        note = server_users.HandedOver(pid=server.pid, port=port)
        (data_dir() / server_users.HANDED_OVER_FILE).write_text(note.model_dump_json())

        server_users.stop_handed_over_if_unused()

        assert server.poll() == 0, "returned while the server was still shutting down"
        assert port_is_free(port)
        assert not (data_dir() / server_users.HANDED_OVER_FILE).exists()
    finally:
        server.kill()
        server.wait()
