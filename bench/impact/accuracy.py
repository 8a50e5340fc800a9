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
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.impact import warm_cli
from bench.impact.__main__ import prepare_repo
from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT, WorkDir
from bench.impact.pairs import ACCURACY_PAIRS, Pair, PythonPair, TypeScriptPair
from bench.impact.python_oracle import griffe_check, load_oracle, run_oracle, save_oracle
from bench.impact.repos import HEAD_REF, git
from bench.impact.snapshots import changed_files, export_ref, snapshot_pair
from prflow.analysis.breaking import analyse_breaking_changes
from prflow.analysis.parse_cache import MemoryParseCache
from prflow.analysis.py_package import ModuleIndex
from prflow.analysis.ts_compiler import TypeScriptCompiler
from prflow.changes import ChangedFile
from prflow.source_tree import DirectoryTree

ORACLES = Path(__file__).resolve().parent / "oracles"
TS_ORACLE = Path(__file__).resolve().parent / "ts_oracle.cjs"
TYPESCRIPT_VERSION = "5.6.3"


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
    """Names the oracle lists that prflow did not report (TypeScript pairs)."""
    extra: tuple[str, ...] = ()
    """Names prflow reported that the oracle does not list (TypeScript pairs)."""

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


def _timed_griffe(base: Path, head: Path, package: str) -> float:
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
        )
        return time.perf_counter() - start, result.changes


def score_python(pair: PythonPair, work: WorkDir) -> PairScore:
    repo = _repo(pair, work)
    base, head = snapshot_pair(repo, work.anchor(pair))
    search = pair.search_path.strip("./")
    prefix = f"{search}/" if search else ""
    oracle_file = ORACLES / f"{pair.slug}.json"
    if not oracle_file.is_file():
        run = run_oracle(base / search, head / search, pair.import_package, prefix)
        save_oracle(oracle_file, run, {"pair": pair.label, "package": pair.import_package})
    expected = load_oracle(oracle_file)
    anchor = _timed_griffe(base / search, head / search, pair.import_package)
    changed = changed_files(repo)
    cache = MemoryParseCache()
    try:
        cold, changes = _analyse(changed, base, head, cache)
        warm, _ = _analyse(changed, base, head, cache)
    except Exception as exc:  # the bench reports a crash; prflow must never have one
        return PairScore(pair, len(expected), 0, 0, 0, 0.0, 0.0, anchor, repr(exc))
    index = ModuleIndex(DirectoryTree(base).paths() + DirectoryTree(head).paths())
    package_dir = prefix + pair.import_package
    ours = []
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
        ours.append(keys)
    hit_expected = sum(1 for o in expected if any(set(o.paths) & keys for keys in ours))
    hit_found = sum(1 for keys in ours if any(set(o.paths) & keys for o in expected))
    return PairScore(pair, len(expected), len(ours), hit_expected, hit_found, cold, warm, anchor)


def _typescript(work: WorkDir) -> Path:
    module = work.tools / "ts" / "node_modules" / "typescript"
    if not (module / "package.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise BenchError("npm is needed to install the TypeScript compiler for the oracle")
        (work.tools / "ts").mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                npm,
                "install",
                "--silent",
                "--no-audit",
                "--no-fund",
                f"typescript@{TYPESCRIPT_VERSION}",
            ],
            cwd=work.tools / "ts",
            check=True,
            capture_output=True,
        )
    return module


def _ts_oracle(pair: TypeScriptPair, work: WorkDir, base: Path, head: Path) -> tuple[dict, float]:  # type: ignore[type-arg]
    check = work.anchor(pair) / "check"
    (check / "node_modules").mkdir(parents=True, exist_ok=True)
    for name, target in (("old-pkg", base), ("new-pkg", head)):
        link = check / "node_modules" / name
        if not link.exists():
            link.symlink_to(target.resolve())
    start = time.perf_counter()
    done = subprocess.run(
        ["node", str(TS_ORACLE), str(_typescript(work)), str(check)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"TypeScript oracle failed on {pair.label}: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout), time.perf_counter() - start


def score_typescript(
    pair: TypeScriptPair, work: WorkDir, modes: tuple[str, ...] = ("tree-sitter", "+ tsc")
) -> list[PairScore]:
    """Scores without a compiler (tree-sitter alone) and with the bench's TypeScript.

    With only the tree-sitter mode and a stored oracle the compiler is not run at
    all (no anchor time: it prints 0).
    """
    repo = _repo(pair, work)
    base, head = snapshot_pair(repo, work.anchor(pair))
    oracle_file = ORACLES / f"{pair.slug}.json"
    if modes == ("tree-sitter",) and oracle_file.is_file():
        data, anchor = {}, 0.0
    else:
        data, anchor = _ts_oracle(pair, work, base, head)
    if not oracle_file.is_file():
        keys = ("removed", "broken", "old_exports", "reasons", "changed_only_through_other_exports")
        stored = {k: data[k] for k in keys}
        stored.update(
            pair=pair.label, tool=f"typescript {TYPESCRIPT_VERSION} (bench/impact/ts_oracle.cjs)"
        )
        oracle_file.parent.mkdir(parents=True, exist_ok=True)
        oracle_file.write_text(
            json.dumps(stored, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
    stored = json.loads(oracle_file.read_text(encoding="utf-8"))
    expected = set(stored["removed"]) | set(stored["broken"])
    changed = changed_files(repo)
    scores = []
    compiler = TypeScriptCompiler(_typescript(work).resolve()) if "+ tsc" in modes else None
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
            )
        )
    return scores


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
    anchor = _timed_griffe(base / "lib", head / "lib", "sqlalchemy")
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
    return f"{language}: recall {recall:.2f}, precision {precision:.2f}, {crashes} crashed pairs"


def _language_lines(language: str, scores: list[PairScore]) -> list[str]:
    modes = sorted({s.mode for s in scores})
    if modes == [""]:
        return [_language_line(language, scores)]
    return [
        _language_line(f"{language} {mode}", [s for s in scores if s.mode == mode])
        for mode in modes
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.accuracy")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--only", choices=("python", "typescript"))
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
        help="TypeScript pairs: list the names missed and the names reported beyond the oracle",
    )
    args = parser.parse_args(argv)
    work = WorkDir(args.work_dir.resolve())
    scores: list[PairScore] = []
    try:
        for pair in ACCURACY_PAIRS:
            if args.only not in (None, pair.language):
                continue
            if args.pair and pair.package not in args.pair:
                continue
            _progress(pair.label)
            if isinstance(pair, PythonPair):
                scores.append(score_python(pair, work))
            elif isinstance(pair, TypeScriptPair):
                modes = (
                    ("tree-sitter",) if args.judge == "tree-sitter" else ("tree-sitter", "+ tsc")
                )
                scores += score_typescript(pair, work, modes)
        small = small_pr(work) if args.only in (None, "python") else None
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
                print(f"      missed: {', '.join(score.missed) or '-'}")
                print(f"      extra:  {', '.join(score.extra) or '-'}")
        for line in _language_lines(language, group):
            print("  " + line)
    python = [s for s in scores if s.pair.language == "python" and not s.crashed]
    if python:
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
