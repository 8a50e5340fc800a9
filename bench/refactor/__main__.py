"""Run: python -m bench.refactor [--only speed|retrieval] [--max-files N] [--min-ratio R]
[--knee-ratio K].

Index speed on Django 5.1.4 (cold, then 3 changed files), then retrieval
precision/recall on the hand-checked directives of ``directives.json``.
Prints each part's figures; the last line is a ratio to the anchor.
"""

from __future__ import annotations

import argparse
import sys

from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT
from bench.refactor import index_speed, retrieval_quality
from prflow.refactor_index.retrieval import RetrievalSettings


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.refactor")
    parser.add_argument("--only", choices=["speed", "retrieval"])
    parser.add_argument("--max-files", type=int, default=RetrievalSettings().max_files)
    parser.add_argument("--min-ratio", type=float, default=RetrievalSettings().min_ratio)
    parser.add_argument("--knee-ratio", type=float, default=RetrievalSettings().knee_ratio)
    args = parser.parse_args()
    work = DEFAULT_ROOT / "refactor"
    try:
        if args.only in (None, "retrieval"):
            settings = RetrievalSettings(
                max_files=args.max_files, min_ratio=args.min_ratio, knee_ratio=args.knee_ratio
            )
            results = retrieval_quality.measure(work, settings)
            retrieval_quality.dump(results, work / "retrieval-bundles.json")
            print("\n".join(retrieval_quality.report(results, settings)), flush=True)
        if args.only in (None, "speed"):
            print("\n".join(index_speed.report(index_speed.measure(work))), flush=True)
    except BenchError as err:
        print(f"bench.refactor: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
