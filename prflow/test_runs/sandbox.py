"""The command line that runs tests without network, or a refusal when none is possible.

bubblewrap's ``--unshare-net`` gives a new network namespace with only a
loopback device; ``unshare --net`` does the same through util-linux (as root,
or with ``--map-root-user`` where unprivileged user namespaces are allowed),
and the loopback device is brought up first so tests may still listen on
127.0.0.1 inside their own namespace. The filesystem is shared either way:
the point is that the repository's tests cannot reach the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prflow.errors import UserError
from prflow.test_runs.models import SandboxKind

NO_SANDBOX = (
    "no network sandbox on this worker (neither bwrap nor unshare works here): install "
    "bubblewrap, or pass --allow-unsandboxed to run the tests with network access"
)


@dataclass(frozen=True)
class Tools:
    """What the worker offers: paths of the binaries, and whether it runs as root."""

    bwrap: str | None
    unshare: str | None
    ip: str | None
    root: bool


@dataclass(frozen=True)
class SandboxPlan:
    kind: SandboxKind
    argv: list[str]


def plan(command: Sequence[str], tools: Tools, *, allow_unsandboxed: bool) -> SandboxPlan:
    """Wrap ``command`` in the best sandbox available; refuse unless unsandboxed is allowed."""
    if tools.bwrap:
        argv = [
            tools.bwrap,
            "--unshare-net",
            "--die-with-parent",
            "--bind",
            "/",
            "/",
            "--dev-bind",
            "/dev",
            "/dev",
            "--proc",
            "/proc",
            "--",
            *command,
        ]
        return SandboxPlan(SandboxKind.bwrap, argv)
    if tools.unshare:
        argv = (
            [tools.unshare, "--net"] if tools.root else [tools.unshare, "--map-root-user", "--net"]
        )
        if tools.ip:
            # Bring loopback up inside the namespace, then become the test command.
            argv += ["--", "sh", "-c", f'{tools.ip} link set lo up && exec "$@"', "sh", *command]
        else:
            argv += ["--", *command]
        return SandboxPlan(SandboxKind.unshare, argv)
    if allow_unsandboxed:
        return SandboxPlan(SandboxKind.none, list(command))
    raise UserError(NO_SANDBOX)
