"""Sandbox modes, resource limits and the report a sandboxed run carries."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

MIB = 1024 * 1024


class SandboxMode(StrEnum):
    """What the operator asks for: the full sandbox, today's network cut only, or nothing."""

    bwrap = "bwrap"
    network_only = "network-only"
    none = "none"


class SandboxKind(StrEnum):
    """The tool that actually ran the command."""

    bwrap = "bwrap"
    unshare = "unshare"
    none = "none"


class Isolation(StrEnum):
    """One property the sandbox held for the run (the report lists those that held)."""

    network = "network"
    pid = "pid"
    ipc = "ipc"
    uts = "uts"
    filesystem = "filesystem"
    private_home = "private-home"
    private_tmp = "private-tmp"
    environment = "environment"
    unprivileged = "unprivileged"
    host_uid = "host-uid"


class ResourceLimits(BaseModel):
    """Per-process limits the sandboxed code cannot raise (rlimits), plus the run's bounds."""

    memory_mb: int = Field(default=4096, ge=64, description="Address space per process (MiB)")
    processes: int = Field(default=512, ge=16, description="Processes and threads in the sandbox")
    file_size_mb: int = Field(default=1024, ge=1, description="Largest file a process may write")
    open_files: int = Field(default=4096, ge=64, description="Open file descriptors per process")
    tmp_mb: int = Field(default=1024, ge=16, description="Size of the private /tmp and $HOME")
    output_mb: float = Field(
        default=4.0, gt=0, le=64, description="Output kept (first quarter and last 3/4)"
    )
    max_output_mb: int = Field(
        default=512, ge=1, description="Output past this stops the run (the rest is not read)"
    )

    def summary(self, *, processes: bool = True) -> str:
        """The limits in force; ``processes`` False when the process limit cannot hold."""
        count = f"{self.processes} processes, " if processes else ""
        return (
            f"memory {self.memory_mb} MiB/process, {count}"
            f"files {self.file_size_mb} MiB, {self.open_files} open files, "
            f"/tmp and $HOME {self.tmp_mb} MiB, output {self.max_output_mb} MiB"
        )


class SandboxReport(BaseModel):
    """Which sandbox ran a command and what it isolated; shown in every report of a run."""

    mode: SandboxMode
    kind: SandboxKind
    isolated: list[Isolation] = Field(default_factory=list)
    limits: ResourceLimits | None = Field(default=None, description="None: no limits applied")
    process_limit: bool = Field(
        default=False, description="The process limit holds (an unprivileged host uid)"
    )

    def summary(self) -> str:
        """One line: ``bwrap: network, pid, ... ; limits ...``."""
        label = self.kind.value
        if self.mode == SandboxMode.network_only:
            label += " (network only)"
        held = ", ".join(i.value for i in self.isolated) or "nothing isolated"
        text = f"{label}: {held}"
        if self.limits is not None:
            text += f"; limits {self.limits.summary(processes=self.process_limit)}"
        return text
