"""``python -m bench.impact [--runs N] [--only python|typescript]``.

For each release pair: fetch, build the two-commit repo, time ``prflow
impact`` (first run on fresh state, then N runs starting their own Temporal,
then N runs against a running ``prflow server``), time the anchor N times,
print a table, and finally one ratio line per pair, Python's last.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from bench.impact.anchors import run_anchor
from bench.impact.errors import BenchError
from bench.impact.fetch import npm_tarball, python_release
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.measure import Timing, repeat, timed
from bench.impact.pairs import PAIRS, Pair, PythonPair
from bench.impact.prflow_cli import ImpactFigures, PrflowCli
from bench.impact.report import PairResult, pair_table, ratio_line
from bench.impact.repos import every_file, release_pair_repo, type_declarations


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def prepare_repo(pair: Pair, work: WorkDir) -> Path:
    """Fetch both releases (cached) and commit them as ``base`` and ``head``."""
    _progress(f"fetching {pair.label}")
    if isinstance(pair, PythonPair):
        archive = pair.archive
        base = python_release(work.downloads, pair.package, pair.base_version, archive)
        head = python_release(work.downloads, pair.package, pair.head_version, archive)
        return release_pair_repo(work.repo(pair), base, head, every_file, pair.label)
    base = npm_tarball(work.downloads, pair.package, pair.base_version)
    head = npm_tarball(work.downloads, pair.package, pair.head_version)
    return release_pair_repo(work.repo(pair), base, head, type_declarations, pair.label)


def measure_pair(pair: Pair, work: WorkDir, runs: int) -> PairResult:
    repo = prepare_repo(pair, work)
    # Each command starts and stops its own Temporal here, as the table says: no warm worker
    # outlives it (bench.impact.accuracy measures the warm worker separately).
    cli = PrflowCli(
        fresh_dir(work.prflow_state(pair)), extra_env={"PRFLOW_TEMPORAL__WARM_SECONDS": "0"}
    )
    report = work.reports(pair) / "impact.json"

    def impact() -> ImpactFigures:
        return cli.impact(repo, report)

    _progress(f"{pair.label}: prflow impact, first run on fresh state")
    cold_seconds, figures = timed(impact)
    _progress(f"{pair.label}: prflow impact x{runs}, each starting its own Temporal")
    embedded, again = repeat(impact, runs, "prflow impact")
    _progress(f"{pair.label}: prflow impact x{runs} against a running prflow server")
    with cli.server():
        server_up, warm = repeat(impact, runs, "prflow impact")
    if again != figures or warm != figures:
        raise BenchError(f"prflow impact gave different results across runs on {pair.label}")
    _progress(f"{pair.label}: anchor x{runs}")
    anchor = run_anchor(pair, work, runs, figures)
    return PairResult(pair, figures, Timing((cold_seconds,)), embedded, server_up, anchor)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.impact",
        description="Time `prflow impact --no-llm` on real release pairs against an anchor tool.",
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs per tool (default 3)")
    parser.add_argument(
        "--only", choices=("python", "typescript"), help="benchmark one language only"
    )
    parser.add_argument(
        "--work-dir", type=Path, default=DEFAULT_ROOT, help="downloads, repos and state"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    work = WorkDir(args.work_dir.resolve())
    pairs = [pair for pair in PAIRS if args.only in (None, pair.language)]
    try:
        results = [measure_pair(pair, work, args.runs) for pair in pairs]
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"prflow impact benchmark, {stamp}, static mode (--no-llm), median of {args.runs}")
    for result in results:
        print()
        print("\n".join(pair_table(result)))
    print()
    for result in sorted(results, key=lambda r: r.pair.language == "python"):
        print(ratio_line(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
