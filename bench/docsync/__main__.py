"""``python -m bench.docsync [--only NAME]``: doc sync's finding phase on real release pairs.

For each pair: fetch both sdists (cached), build a repository whose ``head``
has the new release's code but the base release's docs (what a PR that forgot
the docs looks like), compute the truth (see :mod:`bench.docsync.truth`), run
``prflow docsync --no-llm`` and ``prflow impact --no-llm`` against one running
``prflow server`` (each timed, after one warm-up), and print recall and
precision of must update + review, then the wall-time ratio last.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.docsync.edits import EditAudit, audit_edits
from bench.docsync.truth import archive_texts, symbol_names, truth_docs
from bench.impact.errors import BenchError
from bench.impact.fetch import python_sdist
from bench.impact.griffe_anchor import _ONELINE as GRIFFE_LINE
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.measure import run_checked
from bench.impact.pairs import PythonPair
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF, git, unpack_release
from prflow.docsync.doc_index import DocGlobs

PAIRS = (
    PythonPair("click", "7.1.2", "8.0.0", import_package="click", search_path="src"),
    PythonPair("werkzeug", "2.3.8", "3.0.0", import_package="werkzeug", search_path="src"),
    PythonPair("marshmallow", "3.26.1", "4.0.0", import_package="marshmallow", search_path="src"),
    PythonPair("packaging", "21.3", "22.0", import_package="packaging"),
)
FLAGGED = ("must_update", "review")


@dataclass(frozen=True)
class PairScore:
    label: str
    docs: int
    truth: set[str]
    flagged: set[str]
    docsync_seconds: float
    impact_seconds: float
    edits: EditAudit | None = None

    @property
    def hits(self) -> int:
        return len(self.truth & self.flagged)


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def build_repo(pair: PythonPair, work: WorkDir, base: Path, head: Path) -> Path:
    """``base``: the base release; ``head``: the new code with the base release's docs."""
    repo = work.root / "docsync-repos" / pair.slug
    docs = DocGlobs()
    if (repo / ".git").is_dir():
        return repo
    fresh_dir(repo)
    git(repo, "init", "-q", "-b", "main")
    unpack_release(base, repo, lambda _path: True)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{pair.label}: base release")
    git(repo, "tag", BASE_REF)
    git(repo, "checkout", "-q", "-b", HEAD_REF)
    git(repo, "rm", "-r", "-q", ".")
    unpack_release(head, repo, lambda path: not docs.matches(path))
    unpack_release(base, repo, docs.matches)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{pair.label}: new code, old docs")
    return repo


def griffe_objects(repo: Path, pair: PythonPair) -> set[str]:
    """API objects ``griffe check`` reports broken (its log lines, e.g. alias errors, skipped)."""
    griffe = Path(sys.executable).parent / "griffe"
    command = [str(griffe), "check", pair.import_package, "--against", BASE_REF]
    command += ["--base-ref", HEAD_REF, "--search", pair.search_path or "."]
    command += ["--format", "oneline", "--no-color"]
    done = run_checked(command, cwd=repo, ok_codes=(0, 1))
    found = set()
    for line in (done.stderr + done.stdout).splitlines():
        match = GRIFFE_LINE.match(line)
        if match is not None:
            found.add(match["object"].strip())
    return found


def run_docsync(cli: PrflowCli, repo: Path, report: Path) -> set[str]:
    report.unlink(missing_ok=True)
    command = [str(cli.binary), "docsync", "--repo", ".", "--base", BASE_REF, "--head", HEAD_REF]
    command += ["--no-llm", "--format", "json", "--output", str(report.resolve()), "--quiet"]
    run_checked(command, cwd=repo, env=cli.env())
    data = json.loads(report.read_text(encoding="utf-8"))
    return {doc["path"] for doc in data["docs"] if doc["bucket"] in FLAGGED}


def findings_of(report: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    return loaded


def score_pair(pair: PythonPair, work: WorkDir, *, edits: bool) -> PairScore:
    _progress(f"fetching {pair.label}")
    base = python_sdist(work.downloads, pair.package, pair.base_version)
    head = python_sdist(work.downloads, pair.package, pair.head_version)
    repo = build_repo(pair, work, base, head)
    globs = DocGlobs()
    base_docs, head_docs = archive_texts(base, globs), archive_texts(head, globs)
    _progress(f"griffe check {pair.label}")
    # griffe reads the real releases (base tag vs the release-pair repo's head code)
    changed = griffe_objects(repo, pair)
    truth = truth_docs(base_docs, head_docs, symbol_names(changed))
    cli = PrflowCli(work.prflow_state(pair) / "docsync")
    reports = work.reports(pair)
    reports.mkdir(parents=True, exist_ok=True)
    with cli.server():
        run_docsync(cli, repo, reports / "docsync-warmup.json")
        cli.impact(repo, reports / "impact-warmup.json")
        _progress(f"timing {pair.label}")
        started = time.perf_counter()
        flagged = run_docsync(cli, repo, reports / "docsync.json")
        docsync_seconds = time.perf_counter() - started
        started = time.perf_counter()
        cli.impact(repo, reports / "impact.json")
        impact_seconds = time.perf_counter() - started
    audit = None
    if edits:
        _progress(f"scripted edits {pair.label}")
        found = findings_of(reports / "docsync.json")
        audit = audit_edits(repo, cli, found, reports / "docsync-edits.json")
    return PairScore(
        pair.label, len(base_docs), truth, flagged, docsync_seconds, impact_seconds, audit
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.docsync")
    parser.add_argument("--only", help="Run one package, e.g. click")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument(
        "--no-edits", action="store_true", help="Skip the scripted-edit audit (finding only)"
    )
    args = parser.parse_args(argv)
    work = WorkDir(args.root)
    pairs = [p for p in PAIRS if args.only in (None, p.package)]
    scores: list[PairScore] = []
    try:
        for pair in pairs:
            scores.append(score_pair(pair, work, edits=not args.no_edits))
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    print("| pair | docs | truth | flagged | hits | recall | precision | docsync s | impact s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in scores:
        recall = s.hits / len(s.truth) if s.truth else 1.0
        precision = s.hits / len(s.flagged) if s.flagged else 1.0
        print(
            f"| {s.label} | {s.docs} | {len(s.truth)} | {len(s.flagged)} | {s.hits} | "
            f"{recall:.2f} | {precision:.2f} | {s.docsync_seconds:.1f} | {s.impact_seconds:.1f} |"
        )
    for s in scores:
        missed = sorted(s.truth - s.flagged)
        extra = sorted(s.flagged - s.truth)
        print(f"{s.label}: missed {missed[:8]}; flagged outside the truth {extra[:8]}")
    for s in scores:
        if s.edits is not None:
            e = s.edits
            print(
                f"{s.label} scripted edits: {e.docs} docs, {e.refused_not_unique} first attempts "
                f"refused as not unique, {e.applied} applied, {e.with_reason} with a reason, "
                f"{e.diffs_apply} diffs apply to head, {e.unique_at_head} old texts unique at head"
            )
    truth = sum(len(s.truth) for s in scores)
    flagged = sum(len(s.flagged) for s in scores)
    hits = sum(s.hits for s in scores)
    print(
        f"overall: recall {hits}/{truth} = {hits / max(truth, 1):.2f} (goal >= 0.9), "
        f"precision {hits}/{flagged} = {hits / max(flagged, 1):.2f} (goal >= 0.7)"
    )
    docsync = sum(s.docsync_seconds for s in scores)
    impact = sum(s.impact_seconds for s in scores)
    print(
        f"ratio: docsync finding {docsync:.1f}s / prflow impact {impact:.1f}s "
        f"= {docsync / max(impact, 1e-9):.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
