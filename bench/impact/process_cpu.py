"""CPU seconds of a process and everything under it, read from ``/proc`` (Linux).

Wall time on a shared 2-core machine moves with other people's load; the CPU a warm
worker spends per command (its own threads, its parse processes, the git it runs)
moves far less, so the small-pair bench prints it beside the wall time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from worker.warm import STATE_FILE


def warm_worker_pid(data_dir: Path) -> int | None:
    """The running warm worker's pid, from the state it wrote; None without one."""
    try:
        return int(json.loads((data_dir / STATE_FILE).read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU of ``root`` and its live descendants, with what each reaped (so
    finished pool processes and git runs count once their parent has waited for them)."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    own: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue  # ended while the table was read
        fields = raw[raw.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
        own[int(entry)] = sum(int(value) for value in fields[11:15]) / tick
    total, pending = 0.0, [root]
    while pending:
        pid = pending.pop()
        total += own.get(pid, 0.0)
        pending.extend(children.get(pid, []))
    return total
