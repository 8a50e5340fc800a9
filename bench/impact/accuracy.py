"""``python -m bench.impact.accuracy``: breaking changes against griffe and the TS compiler.

For every release pair (six PyPI packages, four npm packages, each a real
major release) the bench builds the two-commit repository, computes the
oracle once (griffe's check with the corrections listed in
``python_oracle.py``; the TypeScript compiler through ``ts_oracle.cjs``) and
stores it as JSON under ``bench/impact/oracles/`` (committed), runs prflow's
breaking-change analysis in process on the same commits, and prints recall
and precision per pair and per language. Timing is in process on both sides:
prflow's domain function (fresh parse cache, then warm) against griffe's
whole-package check. The last case is a small PR (3 changed files) in a
repository of more than 1,000 files. The ratio is printed last.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.impact import warm_cli
from bench.impact.__main__ import prepare_repo
from bench.impact.errors import BenchError
from bench.impact.eval_set import load_set
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.oracle_store import python_oracle, typescript_module, typescript_oracle
from bench.impact.pairs import ACCURACY_PAIRS, Pair, PythonPair, TypeScriptPair
from bench.impact.prflow_cli import PrflowCli
from bench.impact.python_oracle import griffe_check
from bench.impact.repos import HEAD_REF, git
from bench.impact.snapshots import changed_files, export_ref, snapshot_pair
from prflow.analysis.breaking import analyse_breaking_changes
from prflow.analysis.findings import BreakingChange
from prflow.analysis.parse_cache import InputLimits, MemoryParseCache
from prflow.analysis.py_package import ModuleIndex
from prflow.analysis.ts_compiler import TypeScriptCompiler
from prflow.changes import ChangedFile
from prflow.source_tree import DirectoryTree


@dataclass(frozen=True)
class PairScore:
    pair: Pair
    expected: int
    found: int
    hit_expected: int
    hit_found: int
    prflow_cold: float
    prflow_warm: float
    anchor: float
    crashed: str | None = None
    mode: str = ""
    """How prflow ran: "" for Python; "tree-sitter" or "+ tsc" (its TypeScript compiler)."""
    missed: tuple[str, ...] = ()
    """Names the oracle lists that prflow did not report."""
    extra: tuple[str, ...] = ()
    """Names prflow reported that the oracle does not list."""
    half: str = ""
    """"tune" or "held_out" for a pair of the sampled evaluation set."""
    kinds: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    """Per kind: (oracle objects, of them found, prflow findings, of them in the oracle)."""

    @property
    def recall(self) -> float:
        return self.hit_expected / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        return self.hit_found / self.found if self.found else 1.0


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _repo(pair: Pair, work: WorkDir) -> Path:
    return prepare_repo(pair, work)


@contextlib.contextmanager
def _settled_heap() -> Iterator[None]:
    """Time a step without the bench's own leftovers: earlier pairs' objects are collected,
    and what survives is frozen, so the garbage collector does not walk it again inside the
    timed step (it would, for griffe and prflow alike, in proportion to the bench's history).
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


ACCURACY_LIMITS = InputLimits(seconds_per_file=600.0)
"""Accuracy, not speed: on a shared machine a starved parse worker can take prflow's 20 s per
file (the pool's start-up is not counted) and the file would be listed as not analysed, its
breaks missed (on both sides: a file one side could not read is compared on neither)."""


def timed_griffe(base: Path, head: Path, package: str) -> float:
    """griffe's whole-package check of both releases, in process, on a settled heap."""
    with _settled_heap():
        start = time.perf_counter()
        griffe_check(base, head, package)
        return time.perf_counter() - start


def _analyse(
    changed: list[ChangedFile],
    base: Path,
    head: Path,
    cache: MemoryParseCache,
    compiler: TypeScriptCompiler | None = None,
) -> tuple[float, list]:  # type: ignore[type-arg]
    with _settled_heap():
        start = time.perf_counter()
        result = analyse_breaking_changes(
            changed,
            DirectoryTree(base),
            DirectoryTree(head),
            None,
            None,
            cache=cache,
            compiler=compiler,
            limits=ACCURACY_LIMITS,
        )
        return time.perf_counter() - start, result.changes


def score_python(
    pair: PythonPair, work: WorkDir, cli: PrflowCli | None = None, anchor_timed: bool = True
) -> PairScore:
    """In process (the analysis function on both snapshots), or with ``cli`` through the real
    command run from inside the pair's repository (its JSON report is scored)."""
    repo = _repo(pair, work)
    base, head = snapshot_pair(repo, work.anchor(pair))
    search = pair.search_path.strip("./")
    prefix = f"{search}/" if search else ""
    expected = python_oracle(pair, work)
    anchor = (
        timed_griffe(base / search, head / search, pair.import_package) if anchor_timed else 0.0
    )
    changed = changed_files(repo)
    cache = MemoryParseCache()
    try:
        if cli is None:
            cold, changes = _analyse(changed, base, head, cache)
            warm = _analyse(changed, base, head, cache)[0] if anchor_timed else 0.0
        else:
            cold, changes = _through_cli(cli, repo)
            warm = cold
    except Exception as exc:  # the bench reports a crash; prflow must never have one
        return PairScore(pair, len(expected), 0, 0, 0, 0.0, 0.0, anchor, repr(exc))
    index = ModuleIndex(DirectoryTree(base).paths() + DirectoryTree(head).paths())
    package_dir = prefix + pair.import_package
    ours: list[tuple[str, set[str]]] = []
    for change in changes:
        if change.language != "python" or not change.file.startswith(package_dir):
            continue  # griffe checks one package; scripts, examples and docs are out of its scope
        module = index.by_path.get(change.file)
        keys = set(change.public_paths)
        if module is not None:
            keys.add(
                change.symbol
                if change.symbol == module.dotted
                else f"{module.dotted}.{change.symbol}"
            )
        ours.append((PRFLOW_KIND[change.kind.value], keys))
    kinds: dict[str, list[int]] = {}
    missed, extra = [], []
    for obj in expected:
        row = kinds.setdefault(oracle_kind(obj.kinds), [0, 0, 0, 0])
        row[0] += 1
        if any(set(obj.paths) & keys for _, keys in ours):
            row[1] += 1
        else:
            missed.append(f"{obj.key} [{', '.join(obj.kinds)}]")
    for kind, keys in ours:
        row = kinds.setdefault(kind, [0, 0, 0, 0])
        row[2] += 1
        if any(set(o.paths) & keys for o in expected):
            row[3] += 1
        else:
            extra.append(f"{min(keys)} [{kind}]")
    hit_expected = sum(row[1] for row in kinds.values())
    hit_found = sum(row[3] for row in kinds.values())
    return PairScore(
        pair,
        len(expected),
        len(ours),
        hit_expected,
        hit_found,
        cold,
        warm,
        anchor,
        missed=tuple(missed),
        extra=tuple(extra),
        kinds={kind: (a, b, c, d) for kind, (a, b, c, d) in kinds.items()},
    )


PRFLOW_KIND = {
    "removed_export": "removed",
    "renamed_export": "renamed",
    "changed_signature": "signature",
    "changed_type": "type",
}
_SIGNATURE_KINDS = ("Parameter", "Positional parameter")


def _through_cli(cli: PrflowCli, repo: Path) -> tuple[float, list[BreakingChange]]:
    report = cli.state / "reports" / "impact.json"
    start = time.perf_counter()
    cli.impact(repo.resolve(), report)
    seconds = time.perf_counter() - start
    data = json.loads(report.read_text(encoding="utf-8"))
    return seconds, [BreakingChange.model_validate(item) for item in data["breaking_changes"]]


def oracle_kind(kinds: tuple[str, ...]) -> str:
    """An oracle object's kind: removed, else signature (any parameter break), else type
    (return or attribute type, base class, kind of object)."""
    if "Public object was removed" in kinds:
        return "removed"
    if any(kind.startswith(_SIGNATURE_KINDS) for kind in kinds):
        return "signature"
    return "type"


def score_typescript(
    pair: TypeScriptPair, work: WorkDir, modes: tuple[str, ...] = ("tree-sitter", "+ tsc")
) -> list[PairScore]:
    """Scores without a compiler (tree-sitter alone) and with the bench's TypeScript.

    With only the tree-sitter mode and a stored oracle the compiler is not run at
    all (no anchor time: it prints 0).
    """
    repo = _repo(pair, work)
    base, head = snapshot_pair(repo, work.anchor(pair))
    stored, anchor = typescript_oracle(pair, work, anchor=modes != ("tree-sitter",))
    expected = set(stored["removed"]) | set(stored["broken"])
    changed = changed_files(repo)
    scores = []
    compiler = TypeScriptCompiler(typescript_module(work).resolve()) if "+ tsc" in modes else None
    for mode, judge in (("tree-sitter", None), ("+ tsc", compiler)):
        if mode not in modes:
            continue
        cache = MemoryParseCache()
        try:
            cold, changes = _analyse(changed, base, head, cache, judge)
            warm, _ = _analyse(changed, base, head, cache, judge)
        except Exception as exc:
            scores.append(PairScore(pair, len(expected), 0, 0, 0, 0, 0, anchor, repr(exc), mode))
            continue
        names = {
            path.split(".", 1)[0]
            for change in changes
            for path in change.public_paths
            if ":" not in path  # the compiler checks the main entry point
        }
        hit = len(names & expected)
        missed, extra = tuple(sorted(expected - names)), tuple(sorted(names - expected))
        removed = set(stored["removed"])
        kinds = {
            "removed": (len(removed), len(removed & names), 0, 0),
            "changed": (len(expected - removed), len((expected - removed) & names), 0, 0),
        }
        for kind, group in ts_groups(stored).items():
            kinds[kind] = (len(group), len(group & names), 0, 0)
        scores.append(
            PairScore(
                pair,
                len(expected),
                len(names),
                hit,
                hit,
                cold,
                warm,
                anchor,
                None,
                mode,
                missed,
                extra,
                kinds=kinds,
            )
        )
    return scores


def ts_groups(stored: dict[str, Any]) -> dict[str, set[str]]:
    """Broken names the oracle tags as overload sets or re-exported members (oracles computed
    before the tags existed have none)."""
    expected = set(stored["removed"]) | set(stored["broken"])
    return {
        "overloads": expected & set(stored.get("overloaded", ())),
        "re-exported": expected & set(stored.get("reexported", ())),
    }


# --- a small PR in a big repository -----------------------------------------------------------

_SMALL_PR_FILES = (
    "lib/sqlalchemy/engine/url.py",
    "lib/sqlalchemy/sql/operators.py",
    "lib/sqlalchemy/util/langhelpers.py",
)


def small_pr(work: WorkDir) -> tuple[int, int, float, float, float, int]:
    """Three edited files on top of SQLAlchemy 2.0.0: prflow vs griffe's whole-package check."""
    pair = next(p for p in ACCURACY_PAIRS if p.package == "sqlalchemy")
    repo = _repo(pair, work)
    branch = "small-pr"
    scratch = work.root / "anchor" / "small-pr"
    try:
        git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
    except BenchError:
        git(repo, "checkout", "-q", "-B", branch, HEAD_REF)
        for path in _SMALL_PR_FILES:
            _add_required_parameter(repo / path)
        git(repo, "commit", "-q", "-am", "small PR: a new required parameter in three modules")
        git(repo, "checkout", "-q", HEAD_REF)
    base = export_ref(repo, HEAD_REF, scratch / "base")
    head = export_ref(repo, branch, scratch / "head")
    files = len(DirectoryTree(base).paths())
    changed = changed_files(repo, HEAD_REF, branch)
    anchor = timed_griffe(base / "lib", head / "lib", "sqlalchemy")
    cache = MemoryParseCache()
    cold, changes = _analyse(changed, base, head, cache)
    warm, _ = _analyse(changed, base, head, cache)
    return files, len(changed), anchor, cold, warm, len(changes)


def _add_required_parameter(path: Path) -> None:
    """Give the first public module-level function a new first parameter ``bench_flag``."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.args.args:
            line = lines[node.lineno - 1]
            lines[node.lineno - 1] = line.replace(
                f"def {node.name}(", f"def {node.name}(bench_flag, ", 1
            )
            path.write_text("".join(lines), encoding="utf-8")
            return
    raise BenchError(f"no public function to edit in {path}")


# --- output ------------------------------------------------------------------------------------


def _row(score: PairScore) -> str:
    label = f"{score.pair.label} {score.mode}".strip()
    if score.half:
        label = f"{label} ({'tune' if score.half == 'tune' else 'held-out'})"
    if score.crashed:
        return f"  {label:<34} CRASHED: {score.crashed}"
    anchor = "griffe" if isinstance(score.pair, PythonPair) else "tsc"
    return (
        f"  {label:<40} recall {score.recall:5.2f} "
        f"({score.hit_expected}/{score.expected})"
        f"  precision {score.precision:5.2f} ({score.hit_found}/{score.found})"
        f"  prflow {score.prflow_cold:6.2f}s cold {score.prflow_warm:6.2f}s warm"
        f"  {anchor} {score.anchor:6.2f}s"
    )


def _language_line(language: str, scores: list[PairScore]) -> str:
    expected = sum(s.expected for s in scores)
    found = sum(s.found for s in scores)
    recall = sum(s.hit_expected for s in scores) / expected if expected else 1.0
    precision = sum(s.hit_found for s in scores) / found if found else 1.0
    crashes = sum(1 for s in scores if s.crashed)
    line = (
        f"{language}: recall {recall:.2f} ({sum(s.hit_expected for s in scores)}/{expected}), "
        f"precision {precision:.2f} ({sum(s.hit_found for s in scores)}/{found}), "
        f"{crashes} crashed pairs"
    )
    return line + _kind_text(scores)


def _kind_text(scores: list[PairScore]) -> str:
    """Micro figures per kind: recall by the oracle's kind, precision by prflow's."""
    totals: dict[str, list[int]] = {}
    for score in scores:
        for kind, counts in score.kinds.items():
            row = totals.setdefault(kind, [0, 0, 0, 0])
            for index, count in enumerate(counts):
                row[index] += count
    parts = []
    for kind in ("removed", "renamed", "signature", "type", "changed", "overloads", "re-exported"):
        if kind not in totals:
            continue
        expected, hit, found, hit_found = totals[kind]
        text = f"{kind} recall {hit / expected:.2f} ({hit}/{expected})" if expected else kind
        if found:
            text += f" precision {hit_found / found:.2f} ({hit_found}/{found})"
        if expected or found:
            parts.append(text)
    return "\n      by kind: " + "; ".join(parts) if parts else ""


def _language_lines(language: str, scores: list[PairScore]) -> list[str]:
    lines = []
    halves = sorted({s.half for s in scores})
    for half in halves:
        group = [s for s in scores if s.half == half]
        name = f"{language} {HALF_NAMES.get(half, half)}".strip()
        modes = sorted({s.mode for s in group})
        if modes == [""]:
            lines.append(_language_line(name, group))
            continue
        lines += [
            _language_line(f"{name} {mode}", [s for s in group if s.mode == mode]) for mode in modes
        ]
    return lines


HALF_NAMES = {"tune": "[tuning half]", "held_out": "[held-out half]", "": ""}


def _pairs(chosen: str, half: str | None) -> list[tuple[Pair, str]]:
    if chosen == "hand":
        return [(pair, "") for pair in ACCURACY_PAIRS]
    drawn = sorted(load_set(), key=lambda p: (p.half != "tune", p.ecosystem, p.package))
    return [(p.as_pair(), p.half) for p in drawn if half in (None, p.half)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.accuracy")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--only", choices=("python", "typescript"))
    parser.add_argument(
        "--set",
        choices=("sampled", "hand"),
        default="sampled",
        help="the sampled evaluation set (eval_set.json, both halves) or the hand-picked pairs",
    )
    parser.add_argument("--half", choices=("tune", "held_out"), help="one half of the sampled set")
    parser.add_argument(
        "--no-anchor",
        action="store_true",
        help="Python pairs: accuracy only (no griffe timing, no warm rerun; oracles are stored)",
    )
    parser.add_argument(
        "--via",
        choices=("in-process", "cli"),
        default="in-process",
        help="Python pairs: score the analysis function, or the report of the real command run "
        "from inside each pair's repository through a warm worker",
    )
    parser.add_argument(
        "--pair", action="append", default=[], help="only these packages (repeatable)"
    )
    parser.add_argument(
        "--cli-runs", type=int, default=2, help="warm CLI runs per Python pair (0: skip)"
    )
    parser.add_argument(
        "--judge",
        choices=("both", "tree-sitter"),
        default="both",
        help="TypeScript pairs: both paths, or tree-sitter alone (no compiler run at all)",
    )
    parser.add_argument(
        "--show-misses",
        action="store_true",
        help="list the names missed and the names reported beyond the oracle, per pair",
    )
    args = parser.parse_args(argv)
    work = WorkDir(args.work_dir.resolve())
    scores: list[PairScore] = []
    cli = None
    if args.via == "cli":
        cli = PrflowCli(
            fresh_dir(work.root / "state" / "accuracy-cli"),
            extra_env={"PRFLOW_TEMPORAL__WARM_SECONDS": warm_cli.WARM_SECONDS},
        )
    try:
        for pair, half in _pairs(args.set, args.half):
            if args.only not in (None, pair.language):
                continue
            if args.pair and pair.package not in args.pair:
                continue
            _progress(f"{pair.label} {half}".strip())
            if isinstance(pair, PythonPair):
                score = score_python(pair, work, cli, anchor_timed=not args.no_anchor)
                scores.append(replace(score, half=half))
            elif isinstance(pair, TypeScriptPair):
                modes = (
                    ("tree-sitter",) if args.judge == "tree-sitter" else ("tree-sitter", "+ tsc")
                )
                scores += [replace(s, half=half) for s in score_typescript(pair, work, modes)]
        hand = args.set == "hand" and not args.pair
        small = small_pr(work) if args.only in (None, "python") and hand else None
        warm_runs: list[warm_cli.WarmRun] = []
        if args.only in (None, "python") and args.cli_runs > 0:
            releases = [
                (s.pair.label, _repo(s.pair, work), s.anchor)
                for s in scores
                if isinstance(s.pair, PythonPair) and not s.crashed
            ]
            warm_runs = warm_cli.measure(releases, work, args.cli_runs)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    finally:
        if cli is not None:
            cli.stop_warm_worker()
    print("prflow breaking-change accuracy and in-process speed (cold = fresh parse cache)")
    for language in ("python", "typescript"):
        group = [s for s in scores if s.pair.language == language]
        if not group:
            continue
        oracle = "griffe, corrected" if language == "python" else "TypeScript compiler"
        print(f"\n{language} (oracle: {oracle})")
        for score in group:
            print(_row(score))
            if args.show_misses and (score.missed or score.extra):
                print(f"      missed: {'; '.join(score.missed) or '-'}")
                print(f"      extra:  {'; '.join(score.extra) or '-'}")
        for line in _language_lines(language, group):
            print("  " + line)
    python = [s for s in scores if s.pair.language == "python" and not s.crashed]
    if python and not args.no_anchor:
        cold = sum(s.prflow_cold for s in python)
        warm = sum(s.prflow_warm for s in python)
        anchor = sum(s.anchor for s in python)
        print(
            f"\nrelease pairs, in process: prflow {cold:.2f}s cold / {warm:.2f}s warm, "
            f"griffe {anchor:.2f}s: {cold / anchor:.2f}x cold, {warm / anchor:.2f}x warm"
        )
    if warm_runs:
        print("\n".join(warm_cli.report(warm_runs)))
    if small is not None:
        files, changed, anchor, cold, warm_seconds, found = small
        print(
            f"small PR: {changed} changed files in a {files}-file repository (SQLAlchemy 2.0.0), "
            f"{found} findings; griffe whole-package check {anchor:.2f}s, prflow {cold:.2f}s cold, "
            f"{warm_seconds:.2f}s warm"
        )
        print(
            "ratio prflow/griffe (small PR in a big repo, in process, cold cache): "
            f"{cold / anchor:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
