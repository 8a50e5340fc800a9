"""The printed result: one table per pair, then one ratio line per pair."""

from __future__ import annotations

from dataclasses import dataclass

from bench.impact.anchors import AnchorResult
from bench.impact.measure import Timing
from bench.impact.pairs import Pair
from bench.impact.prflow_cli import ImpactFigures


@dataclass(frozen=True)
class PairResult:
    pair: Pair
    figures: ImpactFigures
    cold: Timing
    embedded: Timing
    server_up: Timing
    anchor: AnchorResult

    @property
    def ratio(self) -> float:
        """prflow as users run it (own Temporal per command) over the anchor's median."""
        return self.embedded.median / self.anchor.timing.median


_HEADER = ("tool", "runs", "median s", "files/s", "vs anchor", "findings")


def _row(name: str, timing: Timing, files: int, anchor: Timing, findings: str) -> tuple[str, ...]:
    return (
        name,
        str(timing.runs),
        f"{timing.median:.2f}",
        f"{files / timing.median:.1f}",
        f"{timing.median / anchor.median:.1f}x",
        findings,
    )


def pair_table(result: PairResult) -> list[str]:
    figures, anchor = result.figures, result.anchor.timing
    files = figures.changed_files
    ours = f"{figures.breaking_changes} breaking changes, risk {figures.risk_score}"
    rows = [
        _HEADER,
        _row("prflow impact, first run (fresh state)", result.cold, files, anchor, ours),
        _row("prflow impact (starts its own Temporal)", result.embedded, files, anchor, ours),
        _row("prflow impact (prflow server running)", result.server_up, files, anchor, ours),
        _row(result.anchor.name, anchor, files, anchor, result.anchor.findings),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER) - 1)]
    lines = [
        f"{result.pair.language}: {result.pair.label}: {files} changed files "
        f"(+{figures.additions}/-{figures.deletions} lines)"
    ]
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:], strict=True)]
        lines.append("  " + "  ".join([*cells, row[-1]]))
    lines += [f"  {note}" for note in result.anchor.notes]
    return lines


def ratio_line(result: PairResult) -> str:
    pair = result.pair
    return (
        f"ratio prflow/{result.anchor.short} ({pair.language}, {pair.label}): {result.ratio:.1f}x"
    )
