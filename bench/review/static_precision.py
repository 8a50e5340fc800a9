"""``python -m bench.review.static_precision``: how often static review findings are wrong.

On real release pairs (sdists of two versions, as ``bench.review`` builds them),
``prflow review --no-llm`` runs as a user runs it; its documentation findings
(stale docs and moved paths, the rules a reviewer mutes first) are looked up
in ``static_labels.tsv`` by (package, target, reason), each judged by reading
the doc lines and the change: ``tp`` (a doc naming it now misleads: the thing is
gone or lives elsewhere) or ``fp`` (it does not: a bare package name that still
imports, a src-layout move, a file that still exists under that name). It also counts
packaging metadata reviewers were handed and the not-reviewed lines printed.

Printed last: false positives / labelled findings over all pairs. A finding
with no label is counted and listed so the set stays honest when output changes.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.fetch import python_sdist
from bench.impact.layout import DEFAULT_ROOT, fresh_dir
from bench.impact.measure import run_checked
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF, every_file, release_pair_repo

PAIRS = [
    ("requests", "2.31.0", "2.32.0"),
    ("click", "7.1.2", "8.0.0"),
    ("werkzeug", "2.3.8", "3.0.0"),
    ("marshmallow", "3.26.1", "4.0.0"),
    ("packaging", "21.3", "22.0"),
]
LABELS = Path(__file__).with_name("static_labels.tsv")
PACKAGING_MARKERS = ("PKG-INFO", ".egg-info/", ".dist-info/")


@dataclass
class PairFigures:
    pair: str
    doc_findings: int
    false_positives: int
    unlabelled: list[str]
    packaging_reviewable: int
    not_reviewed_lines: int


def _labels() -> dict[tuple[str, str, str], str]:
    """(package, target, reason) -> tp | fp: a doc naming that target is or is not stale."""
    with LABELS.open(encoding="utf-8") as handle:
        rows = csv.reader((line for line in handle if not line.startswith("#")), delimiter="\t")
        return {(r[0], r[1], r[2]): r[3] for r in rows if len(r) >= 4}


def _key(ref: dict[str, object]) -> str:
    return f"{ref['target']}\t{ref['reason']}\t({ref['doc_file']}:{ref['line']}: {ref['excerpt']})"


def _measure(cli: PrflowCli, root: Path, package: str, old: str, new: str) -> PairFigures:
    downloads = root / "downloads"
    base, head = python_sdist(downloads, package, old), python_sdist(downloads, package, new)
    pair = f"{package} {old}→{new}"
    repo = release_pair_repo(root / "repos" / f"review-{package}", base, head, every_file, pair)
    out = root / "reports" / "static-precision" / f"{package}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    args = ["review", "--repo", str(repo), "--base", BASE_REF, "--head", HEAD_REF, "--quiet"]
    run_checked(
        [str(cli.binary), *args, "--no-llm", "--format", "json", "--output", str(out)],
        cwd=cli.state,
        env=cli.env(),
        ok_codes=(0, 1),
    )
    report = json.loads(out.read_text())
    md = run_checked(
        [str(cli.binary), *args, "--no-llm", "--format", "md"],
        cwd=cli.state,
        env=cli.env(),
        ok_codes=(0, 1),
    ).stdout
    impact_out = out.with_suffix(".impact.json")
    impact_args = ["impact", *args[1:], "--no-llm", "--format", "json"]
    run_checked(
        [str(cli.binary), *impact_args, "--output", str(impact_out)],
        cwd=cli.state,
        env=cli.env(),
        ok_codes=(0, 1),
    )
    # The analyzer's own list (the review folds a rule that fires on many lines into one).
    docs = json.loads(impact_out.read_text())["stale_docs"]
    labels = _labels()
    verdicts = [labels.get((package, d["target"], d["reason"])) for d in docs]
    packaging_reviewable = sum(
        1
        for entry in report["not_reviewed"]
        if any(m in entry["path"] for m in PACKAGING_MARKERS) and entry["reason"] != "generated"
    )
    not_reviewed_lines = sum(
        1 for line in md.split("\n") if line.startswith("- `") and "no model ran" in line
    ) + sum(1 for line in md.split("\n") if "<summary>" in line and "no model ran" in line)
    return PairFigures(
        pair=pair,
        doc_findings=len(docs),
        false_positives=sum(1 for v in verdicts if v == "fp"),
        unlabelled=[_key(d) for d, v in zip(docs, verdicts, strict=True) if v is None],
        packaging_reviewable=packaging_reviewable,
        not_reviewed_lines=not_reviewed_lines,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.review.static_precision")
    parser.add_argument("--work", type=Path, default=DEFAULT_ROOT, help="work directory")
    root = parser.parse_args(argv).work
    cli = PrflowCli(fresh_dir(root / "state" / "static-precision"))
    try:
        rows = [_measure(cli, root, *pair) for pair in PAIRS]
    except BenchError as err:
        print(f"bench: error: {err}", file=sys.stderr)
        return 2
    finally:
        cli.stop_warm_worker()
    print(
        "pair | doc findings | false positives | unlabelled | packaging files handed to "
        "reviewers | not-reviewed lines"
    )
    for row in rows:
        print(
            f"{row.pair} | {row.doc_findings} | {row.false_positives} | {len(row.unlabelled)} | "
            f"{row.packaging_reviewable} | {row.not_reviewed_lines}"
        )
        for key in row.unlabelled:
            print(f"  unlabelled: {key}")
    total = sum(r.doc_findings for r in rows)
    wrong = sum(r.false_positives for r in rows)
    labelled = total - sum(len(r.unlabelled) for r in rows)
    rate = wrong / labelled if labelled else 0.0
    print(f"false-positive rate (stale-doc + moved-path): {wrong}/{labelled} = {rate:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
