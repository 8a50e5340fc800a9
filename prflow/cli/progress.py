"""Live phase display: a redrawn table on a terminal, plain lines in CI logs.

Quiet, it shows nothing and never loads ``rich`` (a tenth of a second of a short
command's start-up); :attr:`PhaseDisplay.shows_progress` tells the caller it need
not ask the run for its progress at all.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from prflow.run_progress import PhaseState, RunProgress

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live
    from rich.table import Table

_ICONS = {
    PhaseState.pending: "·",
    PhaseState.running: "…",
    PhaseState.done: "✓",
    PhaseState.skipped: "-",
    PhaseState.failed: "✗",
}


class PhaseDisplay:
    """Shows workflow progress on stderr so stdout stays clean for the report."""

    def __init__(self, title: str, *, stream: TextIO | None = None, quiet: bool = False) -> None:
        self._stream = stream or sys.stderr
        self._console: Console | None = None
        if not quiet:
            from rich.console import Console

            self._console = Console(file=self._stream, highlight=False)
        self._live: Live | None = None
        self._title = title
        self._quiet = quiet
        self._seen: dict[str, tuple[PhaseState, str]] = {}
        self._last: RunProgress | None = None

    @property
    def interactive(self) -> bool:
        return self._console is not None and self._console.is_terminal and not self._quiet

    @property
    def shows_progress(self) -> bool:
        """Whether :meth:`update` shows anything (a quiet display drops every update)."""
        return not self._quiet

    def __enter__(self) -> PhaseDisplay:
        if self.interactive:
            from rich.live import Live

            self._live = Live(self._table(None), console=self._console, refresh_per_second=8)
            self._live.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.update(self._table(self._last))
            self._live.__exit__(exc_type, exc, tb)
            self._live = None

    def note(self, text: str) -> None:
        """A one-off line (e.g. where the Web UI is)."""
        if self._quiet:
            return
        if self._live is not None:
            self._live.console.print(text)
        else:
            print(text, file=self._stream, flush=True)

    def update(self, progress: RunProgress) -> None:
        self._last = progress
        if self._live is not None:
            self._live.update(self._table(progress))
            return
        if self._quiet:
            return
        for phase in progress.phases:
            state = (phase.state, phase.detail)
            if phase.state != PhaseState.pending and self._seen.get(phase.name) != state:
                self._seen[phase.name] = state
                detail = f": {phase.detail}" if phase.detail else ""
                print(f"[{phase.name}] {phase.state.value}{detail}", file=self._stream, flush=True)
        if progress.waiting_for_budget:
            key = ("budget", progress.waiting_for_budget)
            if self._seen.get("budget") != (PhaseState.running, key[1]):
                self._seen["budget"] = (PhaseState.running, key[1])
                print(
                    f"[budget] waiting for a raise: {progress.waiting_for_budget}",
                    file=self._stream,
                    flush=True,
                )

    def _table(self, progress: RunProgress | None) -> Table:
        from rich.table import Table

        table = Table(title=self._title, show_header=False, box=None, pad_edge=False)
        table.add_column(width=2)
        table.add_column(style="bold")
        table.add_column()
        if progress is None:
            table.add_row("…", "starting", "")
            return table
        for phase in progress.phases:
            table.add_row(_ICONS[phase.state], phase.name, phase.detail)
        for agent in progress.agents:
            turns = f"{agent.turns} turns, ${agent.spent.usd:.4f}"
            table.add_row(_ICONS[agent.state], f"  {agent.name}", agent.detail or turns)
        spend = progress.spend
        if spend.total_tokens:
            table.add_row("$", "spend", f"${spend.total_usd:.4f} ({spend.total_tokens} tokens)")
        if progress.waiting_for_budget:
            table.add_row("!", "budget", f"waiting for a raise: {progress.waiting_for_budget}")
        return table
