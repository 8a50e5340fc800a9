"""Consumer precision on the release pairs: do the files listed as consumers use the member?

For every breaking change to a class member (``Client.fetch``; constructors
and dunder methods are used through the class, so they are left out), each
file prflow lists as a consumer is checked with a grep of the member's name
as a word in that file at head (at base for a file gone at head). Precision
is the share of listed files where the grep finds it.

``python -m bench.impact.consumers [--only python|typescript]``
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.impact.accuracy import _repo
from bench.impact.layout import DEFAULT_ROOT, WorkDir
from bench.impact.pairs import ACCURACY_PAIRS, Pair
from bench.impact.snapshots import changed_files, snapshot_pair
from prflow.analysis.breaking import analyse_breaking_changes
from prflow.imports.build import build_import_graph
from prflow.source_tree import DirectoryTree

_WORD = re.compile(r"[\w$]+")


@dataclass(frozen=True)
class ConsumerScore:
    pair: Pair
    members: int
    listed: int
    using: int

    @property
    def precision(self) -> float:
        return self.using / self.listed if self.listed else 1.0


def score(pair: Pair, work: WorkDir) -> ConsumerScore:
    repo = _repo(pair, work)
    base, head = snapshot_pair(repo, work.anchor(pair))
    base_tree, head_tree = DirectoryTree(base), DirectoryTree(head)
    result = analyse_breaking_changes(
        changed_files(repo),
        base_tree,
        head_tree,
        build_import_graph(head_tree),
        build_import_graph(base_tree),
    )
    members = listed = using = 0
    for change in result.changes:
        if change.before == f"module {change.symbol}":
            continue  # a removed module: every importer consumes it
        member = change.symbol.rsplit(".", 1)[-1] if "." in change.symbol else ""
        if not member or (member.startswith("__") and member.endswith("__")):
            continue
        if member in ("constructor", "prototype"):
            continue
        members += 1
        for path in change.consumers:
            listed += 1
            text = _read(head / path) or _read(base / path) or ""
            using += member in set(_WORD.findall(text))
    return ConsumerScore(pair, members, listed, using)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def report(scores: list[ConsumerScore]) -> list[str]:
    lines = ["consumers of changed members (grep of the member's name in each listed file):"]
    for item in scores:
        lines.append(
            f"  {item.pair.label:<34} {item.members:4d} member findings, {item.listed:5d} "
            f"consumer files listed, {item.using:5d} use the name: precision {item.precision:.2f}"
        )
    listed = sum(s.listed for s in scores)
    using = sum(s.using for s in scores)
    lines.append(
        f"  consumer precision: {using / listed if listed else 1.0:.2f} ({using}/{listed})"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.consumers")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--only", choices=("python", "typescript"))
    args = parser.parse_args(argv)
    work = WorkDir(args.work_dir.resolve())
    pairs = [p for p in ACCURACY_PAIRS if args.only in (None, p.language)]
    print("\n".join(report([score(pair, work) for pair in pairs])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
