"""``python -m bench.docsync``: doc sync's finding phase on release pairs drawn by a script.

The pairs are the committed draw of :mod:`bench.docsync.eval_set` (widely used PyPI
packages, fixed seed, a tuning and a held-out half; ``--redraw`` draws again here).
For each pair: a repository whose ``head`` has the new release's code but the base
release's docs (what a PR that forgot the docs looks like), the use truth (the headline:
:mod:`bench.docsync.use_truth`, :mod:`bench.docsync.removed_files`) and, beside it, the
strict and the old loose ones (:mod:`bench.docsync.truth`),
``prflow docsync --no-llm`` and ``prflow impact --no-llm`` against one running
``prflow server`` (each timed, after one warm-up); recall and precision of
must update + review per half, then the wall-time ratio last.

``--quick`` skips the server: it reads the stored ``prflow impact`` report of
each pair (run once when missing) and runs the finding code in process, for
tuning; its figures are the same code's, but not timed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.docsync.breakages import CACHE_NAME, Breakage, pair_breakages
from bench.docsync.edits import EditAudit, audit_edits
from bench.docsync.eval_set import (
    COUNT,
    EXTRA_DRAWS,
    EXTRA_SEED_OFFSET,
    HELD_OUT_SEED_OFFSET,
    MANIFEST,
    ROUND_SEED_STEP,
    SEED,
    TUNED_IN_ROUND_ONE,
    DocPair,
    committed_sdist,
    docsync_set,
    extend_held_out,
    extend_tuning,
    extra_held_out_labels,
)
from bench.docsync.in_process import findings_in_process
from bench.docsync.later_fix import later_sdist
from bench.docsync.removed_files import archive_files, file_names, file_use_docs, removed_files
from bench.docsync.repo import build_repo, griffe_objects
from bench.docsync.truth import (
    LineUses,
    archive_texts,
    code_edit_truth_docs,
    code_lines,
    code_names,
    symbol_names,
    truth_docs,
    upstream_changed_lines,
)
from bench.docsync.use_truth import line_judge, use_truth_docs
from bench.eval_sets import HALVES, Half
from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT, WorkDir
from bench.impact.measure import run_checked
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF
from prflow.docsync.doc_index import DocGlobs

FLAGGED = ("must_update", "review")
HALF_TITLES: dict[Half, str] = {"tune": "tuning half", "held_out": "held-out half"}


@dataclass(frozen=True)
class PairScore:
    item: DocPair
    docs: int
    flagged: set[str]
    use_truth: set[str]
    """The headline: upstream edited a line using a broken object the way griffe's breakage
    touches, or naming a removed file (:func:`use_truth`)."""
    truth: set[str]
    """The strict truth (:func:`bench.docsync.truth.code_edit_truth_docs`), printed beside."""
    old_truth: set[str]
    """The old, loose truth (:func:`bench.docsync.truth.truth_docs`), printed beside it."""
    evidence_changed: int
    """Flagged use-truth docs whose first evidence line upstream changed or removed."""
    extras_evidence_changed: int
    """Docs flagged outside the use truth whose first evidence line upstream changed or
    removed in the head release (the rest: upstream left that line as it was)."""
    extras_stale: int
    """Of the rest, those whose line uses a broken object the way its breakage touches, by
    the use truth's own rules: stale at head, and upstream left them."""
    docsync_seconds: float | None
    impact_seconds: float | None
    edits: EditAudit | None = None
    must_update: set[str] = field(default_factory=set)
    """The flagged docs in the must-update bucket (the rest are for review)."""

    @property
    def use_hits(self) -> int:
        return len(self.use_truth & self.flagged)

    @property
    def hits(self) -> int:
        return len(self.truth & self.flagged)

    @property
    def old_hits(self) -> int:
        return len(self.old_truth & self.flagged)


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run_docsync(cli: PrflowCli, repo: Path, report: Path) -> dict[str, object]:
    report.unlink(missing_ok=True)
    command = [str(cli.binary), "docsync", "--repo", ".", "--base", BASE_REF, "--head", HEAD_REF]
    command += ["--no-llm", "--format", "json", "--output", str(report.resolve()), "--quiet"]
    run_checked(command, cwd=repo, env=cli.env())
    loaded: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    return loaded


def flagged_docs(findings: dict[str, object], buckets: Sequence[str] = FLAGGED) -> set[str]:
    docs = findings["docs"]
    assert isinstance(docs, list)
    return {doc["path"] for doc in docs if doc["bucket"] in buckets}


def _evidence_changed(
    findings: dict[str, object], among: set[str], changed: dict[str, set[int]]
) -> int:
    """How many flagged docs of ``among`` point the agent at a line upstream changed."""
    pointed = _first_evidence_lines(findings, among)
    return sum(1 for path, line in pointed.items() if line in changed.get(path, set()))


def _first_evidence_lines(findings: dict[str, object], among: set[str]) -> dict[str, int]:
    """The line each flagged doc of ``among`` points the agent at first (its first mention)."""
    docs = findings["docs"]
    assert isinstance(docs, list)
    found: dict[str, int] = {}
    for doc in docs:
        if doc["bucket"] not in FLAGGED or doc["path"] not in among:
            continue
        lines = [e["line"] for e in doc["evidence"] if e.get("line") and e["kind"] == "mention"]
        if lines:
            found[doc["path"]] = lines[0]
    return found


def score_pair(item: DocPair, work: WorkDir, *, edits: bool, quick: bool) -> PairScore:
    pair = item.pair
    _progress(f"{HALF_TITLES[item.half]}: {pair.label}")
    base = committed_sdist(work.downloads, pair.package, pair.base_version)
    head = committed_sdist(work.downloads, pair.package, pair.head_version)
    repo = build_repo(pair, work, base, head)
    globs = DocGlobs()
    base_docs, head_docs = archive_texts(base, globs), archive_texts(head, globs)
    changed_lines = upstream_changed_lines(base_docs, head_docs)
    reports = work.reports(pair)
    reports.mkdir(parents=True, exist_ok=True)
    broken_file = reports / "griffe-objects.json"
    if not broken_file.is_file():
        broken_file.write_text(json.dumps(sorted(griffe_objects(repo, pair))))
    broken = json.loads(broken_file.read_text())
    names = symbol_names(broken)
    truth = set(code_edit_truth_docs(base_docs, head_docs, code_names(broken, pair.import_package)))
    breakages = pair_breakages(repo, pair, reports / CACHE_NAME)
    used = use_truth(item, (base, head), (base_docs, head_docs), breakages, work.downloads)
    cli = PrflowCli(work.prflow_state(pair) / "docsync")
    docsync_seconds = impact_seconds = None
    if quick:
        if not (reports / "impact.json").is_file():
            with cli.server():
                cli.impact(repo, reports / "impact.json")
        found = findings_in_process(repo, reports / "impact.json")
    else:
        with cli.server():
            run_docsync(cli, repo, reports / "docsync-warmup.json")
            cli.impact(repo, reports / "impact-warmup.json")
            started = time.perf_counter()
            found = run_docsync(cli, repo, reports / "docsync.json")
            docsync_seconds = time.perf_counter() - started
            started = time.perf_counter()
            cli.impact(repo, reports / "impact.json")
            impact_seconds = time.perf_counter() - started
    audit = None
    if edits and not quick:
        _progress(f"scripted edits {pair.label}")
        audit = audit_edits(repo, cli, found, reports / "docsync-edits.json")
    flagged = flagged_docs(found)
    return PairScore(
        item,
        len(base_docs),
        flagged,
        used,
        truth,
        truth_docs(base_docs, head_docs, names),
        _evidence_changed(found, used, changed_lines),
        _evidence_changed(found, flagged - used, changed_lines),
        _stale_left(
            found,
            flagged - used,
            changed_lines,
            base_docs,
            line_judge(breakages, pair.import_package),
        ),
        docsync_seconds,
        impact_seconds,
        audit,
        flagged_docs(found, ("must_update",)),
    )


def _stale_left(
    findings: dict[str, object],
    among: set[str],
    changed: dict[str, set[int]],
    base_docs: dict[str, str],
    judge: LineUses,
) -> int:
    """How many flagged docs of ``among`` point at a line upstream left as it was although it
    uses a broken object as the breakage touches (``judge``)."""
    count = 0
    for path, line in _first_evidence_lines(findings, among).items():
        text = base_docs.get(path)
        if text is None or line in changed.get(path, set()):
            continue
        lines = text.splitlines()
        if line <= len(lines) and judge(lines, line - 1, line in code_lines(text)):
            count += 1
    return count


def use_truth(
    item: DocPair,
    archives: tuple[Path, Path],
    docs: tuple[dict[str, str], dict[str, str]],
    breakages: list[Breakage],
    downloads: Path,
) -> set[str]:
    """The headline truth: docs upstream edited, in the head release or in the last release
    of its line within a year (:mod:`bench.docsync.later_fix`), on a line that uses a broken
    API object as its breakage touches (:mod:`bench.docsync.use_truth`; the breakages cached
    beside the reports) or that names a file the release removed
    (:mod:`bench.docsync.removed_files`)."""
    pair = item.pair
    base, head = archives
    head_files = archive_files(head)
    removed = file_names(removed_files(archive_files(base), head_files, DocGlobs()), head_files)
    base_docs, head_docs = docs
    afters = [head_docs]
    later = later_sdist(pair.package, pair.head_version, downloads)
    if later is not None:
        afters.append(archive_texts(later[1], DocGlobs()))
    found: set[str] = set()
    for after in afters:
        found |= set(use_truth_docs(base_docs, after, breakages, pair.import_package))
        found |= set(file_use_docs(base_docs, after, *removed))
    return found


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.2f}" if whole else f"{part}/0"


def _recall_precision(hits: int, truth: int, flagged: int) -> str:
    recall = hits / truth if truth else 1.0
    precision = hits / flagged if flagged else 1.0
    return f"{hits} | {recall:.2f} | {precision:.2f}"


def print_half(half: Half, scores: Sequence[PairScore]) -> None:
    title = HALF_TITLES[half]
    print(f"### {title} ({len(scores)} pairs)")
    print(
        "| pair | docs | flagged | use truth | hits | recall | precision | strict truth | hits "
        "| recall | precision | old truth | hits | recall | precision | docsync s | impact s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in scores:
        times = " | ".join(
            f"{t:.1f}" if t is not None else "-" for t in (s.docsync_seconds, s.impact_seconds)
        )
        use = _recall_precision(s.use_hits, len(s.use_truth), len(s.flagged))
        strict = _recall_precision(s.hits, len(s.truth), len(s.flagged))
        old = _recall_precision(s.old_hits, len(s.old_truth), len(s.flagged))
        print(
            f"| {s.item.pair.label} | {s.docs} | {len(s.flagged)} | {len(s.use_truth)} | {use} "
            f"| {len(s.truth)} | {strict} | {len(s.old_truth)} | {old} | {times} |"
        )
    for s in scores:
        missed = sorted(s.use_truth - s.flagged)
        extra = sorted(s.flagged - s.use_truth)
        if missed or extra:
            print(
                f"{s.item.pair.label} (use truth): missed {missed[:8]}; "
                f"flagged outside the truth {extra[:8]}"
            )
    for s in scores:
        if s.edits is not None:
            e = s.edits
            print(
                f"{s.item.pair.label} scripted edits: {e.docs} docs, {e.refused_not_unique} first "
                f"attempts refused as not unique, {e.applied} applied, {e.with_reason} with a "
                f"reason, {e.diffs_apply} diffs apply to head, {e.unique_at_head} old texts "
                "unique at head"
            )
    print_totals(title, scores)
    print()


def print_totals(title: str, scores: Sequence[PairScore]) -> None:
    """Recall and precision over ``scores``: the use truth first, then the strict and the
    old one."""
    flagged = sum(len(s.flagged) for s in scores)
    used = sum(len(s.use_truth) for s in scores)
    use_hits = sum(s.use_hits for s in scores)
    truth = sum(len(s.truth) for s in scores)
    hits = sum(s.hits for s in scores)
    old_truth = sum(len(s.old_truth) for s in scores)
    old_hits = sum(s.old_hits for s in scores)
    pointed = sum(s.evidence_changed for s in scores)
    extras = sum(len(s.flagged - s.use_truth) for s in scores)
    extras_changed = sum(s.extras_evidence_changed for s in scores)
    stale = sum(s.extras_stale for s in scores)
    print(
        f"{title}, use truth (headline): recall {_ratio(use_hits, used)} (goal >= 0.9), "
        f"precision {_ratio(use_hits, flagged)} (goal >= 0.8)"
    )
    must = sum(len(s.must_update) for s in scores)
    must_hits = sum(len(s.must_update & s.use_truth) for s in scores)
    print(
        f"{title}, use truth, the must-update bucket alone ({must} of the {flagged} flagged): "
        f"recall {_ratio(must_hits, used)}, precision {_ratio(must_hits, must)}"
    )
    print(
        f"{title}, strict truth (upstream edited a line naming a broken object as code): "
        f"recall {_ratio(hits, truth)}, precision {_ratio(hits, flagged)}"
    )
    print(
        f"{title}, old truth (loose, for comparison): recall {_ratio(old_hits, old_truth)}, "
        f"precision {_ratio(old_hits, flagged)}"
    )
    print(
        f"{title}: the first evidence line is one upstream changed in "
        f"{_ratio(pointed, use_hits)} of the use-truth docs found"
    )
    print(
        f"{title}: of the {extras} docs flagged outside the use truth, upstream changed the "
        f"first evidence line in {extras_changed} and left it as it was in "
        f"{extras - extras_changed}, {stale} of them on a line that uses a broken object as "
        "its breakage touches (stale at head by the use truth's own rules)"
    )


_ORDINALS = (
    "",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
)


def subsets(scores: Sequence[PairScore]) -> list[tuple[Half, str, list[PairScore]]]:
    """The parts of each half printed on their own: each extra draw alone, the committed
    held-out pairs, and the held-out half without the pairs round 1 tuned on."""
    drawn = {key: extra_held_out_labels(key=key) for key in EXTRA_DRAWS}
    extra = set().union(*drawn.values())
    held_out = [s for s in scores if s.item.half == "held_out"]
    tuning = [s for s in scores if s.item.half == "tune"]
    found: list[tuple[Half, str, list[PairScore]]] = [
        (
            "tune",
            "tuning half, the second extra draw alone",
            _labelled(tuning, drawn[EXTRA_DRAWS[2]]),
        ),
        (
            "held_out",
            "held-out half without the pairs round 1 tuned on",
            [s for s in held_out if s.item.pair.package not in TUNED_IN_ROUND_ONE],
        ),
        (
            "held_out",
            "held-out half, the committed pairs alone",
            [s for s in held_out if s.item.pair.label not in extra],
        ),
    ]
    held_out_draws = [key for key in EXTRA_DRAWS if key.startswith("extra_held_out")]
    for number, key in enumerate(held_out_draws, start=1):
        title = "the extra draw" if number == 1 else f"the {_ORDINALS[number]} extra draw"
        found.append(("held_out", f"held-out half, {title} alone", _labelled(held_out, drawn[key])))
    return found


def _labelled(scores: Sequence[PairScore], labels: set[str]) -> list[PairScore]:
    return [s for s in scores if s.item.pair.label in labels]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.docsync", description=__doc__)
    parser.add_argument("--only", help="Run one package of the set, e.g. click")
    parser.add_argument("--half", choices=[*HALVES, "both"], default="both")
    parser.add_argument(
        "--draw",
        choices=EXTRA_DRAWS,
        help="Run one extra draw's pairs alone, e.g. a new held-out draw's blind first score",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--quick", action="store_true", help="In process, untimed (for tuning)")
    parser.add_argument(
        "--no-edits", action="store_true", help="Skip the scripted-edit audit (finding only)"
    )
    parser.add_argument(
        "--redraw",
        action="store_true",
        help=f"Draw the set again here instead of reading {MANIFEST.name} (rewritten for the "
        "default seed and count)",
    )
    parser.add_argument(
        "--extra-tuning",
        type=int,
        metavar="N",
        help=f"Retire packaging-only tuning pairs and add N tuning pairs drawn with seed + "
        f"{EXTRA_SEED_OFFSET} from packages the committed draw did not look at (rewrites "
        f"{MANIFEST.name}; the held-out half is unchanged), then stop",
    )
    parser.add_argument(
        "--extra-held-out",
        type=int,
        metavar="N",
        help=f"Add N held-out pairs drawn with seed + {HELD_OUT_SEED_OFFSET} from packages "
        f"neither the committed draw nor the extra tuning draw looked at (rewrites "
        f"{MANIFEST.name}; nothing else changes), then stop",
    )
    parser.add_argument(
        "--round",
        type=int,
        default=1,
        dest="round_number",
        help=f"With --extra-tuning or --extra-held-out: which round of extra draws (2 adds "
        f"{ROUND_SEED_STEP} to the seed offset and avoids every package an earlier draw "
        "looked at; stored under extra_tuning_2 / extra_held_out_2)",
    )
    args = parser.parse_args(argv)
    work = WorkDir(args.root)
    for count, extend, title in (
        (args.extra_tuning, extend_tuning, "tuning"),
        (args.extra_held_out, extend_held_out, "held-out"),
    ):
        if not count:
            continue
        try:
            extra = extend(work, count, round_number=args.round_number)
        except BenchError as err:
            print(f"bench: {err}", file=sys.stderr)
            return 2
        for item in extra:
            print(f"extra {title} pair: {item.pair.label} ({len(item.truth)} old-truth docs)")
        return 0
    try:
        drawn = docsync_set(work, seed=args.seed, count=args.count, redrawn=args.redraw)
        in_draw = extra_held_out_labels(key=args.draw) if args.draw else None
        chosen = [
            item
            for item in drawn
            if args.only in (None, item.pair.package)
            and args.half in ("both", item.half)
            and (in_draw is None or item.pair.label in in_draw)
        ]
        scores = [score_pair(i, work, edits=not args.no_edits, quick=args.quick) for i in chosen]
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    committed = not args.redraw and args.seed == SEED and args.count == COUNT
    source = f"committed in {MANIFEST.name}" if committed else "drawn here"
    print(f"doc sync evaluation set: seed {args.seed}, {len(drawn)} pairs, {source}")
    print()
    for half in HALVES:
        in_half = [s for s in scores if s.item.half == half]
        if in_half:
            print_half(half, in_half)
    for half, title, subset in subsets(scores):
        in_half = [s for s in scores if s.item.half == half]
        if subset and len(subset) < len(in_half):
            print_totals(f"{title} ({len(subset)} pairs)", subset)
            print()
    timed = [s for s in scores if s.docsync_seconds is not None and s.impact_seconds is not None]
    if timed:
        docsync = sum(s.docsync_seconds or 0.0 for s in timed)
        impact = sum(s.impact_seconds or 0.0 for s in timed)
        print(
            f"ratio: docsync finding {docsync:.1f}s / prflow impact {impact:.1f}s "
            f"= {docsync / max(impact, 1e-9):.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
