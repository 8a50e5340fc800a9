"""Which sandbox a command gets on this worker, or the one-line refusal.

``bwrap`` (the default) is the full sandbox of :mod:`prflow.sandbox.layout`;
without it the run is refused, never quietly weakened, unless the operator
asked for ``--sandbox network-only`` (a new network namespace on the host's
filesystem: bubblewrap, else ``unshare``) or ``--allow-unsandboxed`` (the best
there is, down to nothing). ``none`` runs the command as a plain process. In
every mode the environment comes from the allow-list and the report says what
held.
"""

from __future__ import annotations

from dataclasses import dataclass

from prflow.errors import UserError
from prflow.sandbox.layout import Host
from prflow.sandbox.models import (
    Isolation,
    ResourceLimits,
    SandboxKind,
    SandboxMode,
    SandboxReport,
)

NO_BWRAP = (
    "bubblewrap cannot sandbox the repository's code on this worker (bwrap is missing or "
    "denied the namespaces it needs): install bubblewrap (apt-get install bubblewrap) and "
    "allow user namespaces, or pass --sandbox network-only or --allow-unsandboxed"
)
NO_SANDBOX = (
    "no network sandbox on this worker (neither bwrap nor unshare works here): install "
    "bubblewrap, or pass --allow-unsandboxed to run the tests with network access"
)
FULL = [
    Isolation.network,
    Isolation.pid,
    Isolation.ipc,
    Isolation.uts,
    Isolation.filesystem,
    Isolation.private_home,
    Isolation.private_tmp,
    Isolation.environment,
    Isolation.unprivileged,
]


@dataclass(frozen=True)
class Tools:
    """The sandboxes that work on this worker (probed once per process)."""

    host: Host | None
    """Facts for the full bubblewrap sandbox; None when it does not work here."""
    bwrap: str | None
    """A bubblewrap that can at least cut the network."""
    unshare: str | None
    ip: str | None
    root: bool
    prlimit: str | None = None
    problem: str = ""
    """Why the full sandbox does not work here (bwrap's own words), for the refusal."""


@dataclass(frozen=True)
class SandboxChoice:
    mode: SandboxMode
    kind: SandboxKind
    full: bool = False

    def report(self, tools: Tools, limits: ResourceLimits, *, network: bool) -> SandboxReport:
        """What this choice isolates on this worker."""
        if self.full and tools.host is not None:
            isolated = [i for i in FULL if network is False or i != Isolation.network]
            unprivileged_host = tools.host.layered or not tools.host.root
            if unprivileged_host:
                isolated.append(Isolation.host_uid)
            return SandboxReport(
                mode=self.mode,
                kind=self.kind,
                isolated=isolated,
                limits=limits if tools.host.prlimit else None,
                process_limit=bool(tools.host.prlimit) and unprivileged_host,
            )
        isolated = [Isolation.environment]
        if self.kind != SandboxKind.none and not network:
            isolated.insert(0, Isolation.network)
        return SandboxReport(
            mode=self.mode,
            kind=self.kind,
            isolated=isolated,
            limits=limits if tools.prlimit else None,
        )


def choose(mode: SandboxMode, tools: Tools, *, allow_unsandboxed: bool) -> SandboxChoice:
    """The sandbox for ``mode``; a :class:`UserError` when it cannot be had and was not waived."""
    if mode == SandboxMode.none:
        return SandboxChoice(mode, SandboxKind.none)
    if mode == SandboxMode.bwrap:
        if tools.host is not None:
            return SandboxChoice(mode, SandboxKind.bwrap, full=True)
        if not allow_unsandboxed:
            said = " ".join(tools.problem.split())[:200]
            raise UserError(f"{NO_BWRAP} ({said})" if said else NO_BWRAP)
    if tools.bwrap:
        return SandboxChoice(mode, SandboxKind.bwrap)
    if tools.unshare:
        return SandboxChoice(mode, SandboxKind.unshare)
    if allow_unsandboxed:
        return SandboxChoice(mode, SandboxKind.none)
    raise UserError(NO_SANDBOX)
