"""``python -m bench.eval_sets pypi|npm --seed N --count N``: print a draw and its halves."""

from __future__ import annotations

import argparse
import sys

from bench.eval_sets.sampling import by_half, sample_pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval_sets", description=__doc__)
    parser.add_argument("ecosystem", choices=["pypi", "npm"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--kind", choices=["major", "minor"], default="minor")
    args = parser.parse_args(argv)
    pairs = sample_pairs(args.ecosystem, seed=args.seed, count=args.count, kind=args.kind)
    for half, members in by_half(pairs).items():
        print(f"{half} ({len(members)})")
        for pair in members:
            print(f"  {pair.label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
