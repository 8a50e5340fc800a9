"""``python -m bench.refactor_corpus [--seed S] [--libraries N] [--cases-per-library K]
[--models known,left_behind,nonsense,chaos] [--chaos-share F] [--max-cases M] [--minutes T]``:
the refactor gates on a corpus nobody picked by hand.

The libraries are drawn by the shared sampler (``bench.eval_sets.sample_pairs`` over the
widely used PyPI packages, fixed seed), each the head release of its pair, kept when its
sdist ships ``tests/``, is pure Python, and its suite is green in under two minutes when
prflow runs it; the sampler puts each library in the tuning or the held-out half. Per
library, rope computes refactor targets (function, method, class and parameter renames, a
function moved to a new module) in a seeded order, and a target is a case when the suite
stays green on it. Each case runs on a fresh clone with ``apply`` asked, against a
scripted model that knows the target edits, one that leaves one file behind, one that
writes nonsense, and the known model with the worker SIGKILLed at a seeded moment.

Goals: known -> validated, the tree equal to the target, the suite green (>= 95 %);
left_behind -> aborted, never applied (100 %); nonsense -> aborted, tree byte-identical
(100 %); chaos -> the same patch as undisturbed, no model turn paid twice (100 %). The
anchor is rope itself: computing and applying the same change plus two suite runs; the
last line is the ratio of median wall times, prflow (known) over the anchor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.refactor_corpus.libraries import Library, fetch, package_dir, static_reasons, suite
from bench.refactor_corpus.models import MODELS, routes
from bench.refactor_corpus.stage import Stage, corpus_stage, resent_turns
from bench.refactor_corpus.targets import Target, compute, draw

WORK = Path(__file__).resolve().parents[1] / ".work" / "refactor-corpus"
CASE_TIMEOUT = 1200
MIN_FILES = 2


@dataclass
class Case:
    library: str
    half: str
    target: Target
    anchor_seconds: float = 0.0


@dataclass
class Outcome:
    library: str
    half: str
    kind: str
    model: str
    status: str
    goal_met: bool
    wall: float
    detail: str = ""
    extra: dict[str, object] = field(default_factory=dict)


STATIC = "layout: "


def pick_libraries(seed: int, count: int, max_suite: float) -> list[tuple[Library, str]]:
    from bench.eval_sets import ReleasePair, sample_pairs

    cache = WORK / "eligibility.json"
    known: dict[str, dict[str, object]] = json.loads(cache.read_text()) if cache.exists() else {}
    found: dict[str, Library] = {}

    def eligible(pair: ReleasePair) -> bool:
        key = f"{pair.package}=={pair.head}"
        shape = known.get(f"{pair.package}:shape", {})
        if key not in known and shape.get("why"):
            return False  # the package was ruled out on its first offered release
        if key not in known:
            known[key] = _judge(pair.package, pair.head, max_suite)
            if known[key].get("why"):
                known[f"{pair.package}:shape"] = known[key]  # its first offered release decides
            cache.write_text(json.dumps(known, indent=1))
            print(f"  {key}: {known[key].get('why') or 'eligible'}", flush=True)
        entry = known[key]
        if entry.get("why") or float(entry.get("seconds", 0)) > max_suite:  # type: ignore[arg-type]
            return False
        found[pair.package] = Library(
            pair.package,
            pair.head,
            Path(str(entry["repo"])),
            str(entry["package"]),
            int(entry["tests"]),  # type: ignore[call-overload]
            float(entry["seconds"]),  # type: ignore[arg-type]
        )
        return True

    pairs = sample_pairs("pypi", seed=seed, count=count, eligible=eligible)
    return [(found[p.package], p.half) for p in pairs]


def _judge(name: str, version: str, max_suite: float) -> dict[str, object]:
    repo = fetch(WORK, name, version)
    if repo is None:
        return {"why": "no sdist"}
    reasons = static_reasons(repo, name)
    if reasons:
        return {"why": STATIC + "; ".join(reasons)}
    tests, seconds, problem = suite(repo, f"corpus-pick-{name}", max_suite)
    if problem:
        return {"why": problem}
    return {
        "repo": str(repo),
        "package": package_dir(repo, name),
        "tests": tests,
        "seconds": round(seconds, 1),
    }


def clone(repo: Path, where: Path) -> Path:
    shutil.rmtree(where, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(where)], check=True)
    return where


def write_target(tree: Path, target: Target) -> None:
    for path, text in target.changes.items():
        file = tree / path
        if text is None:
            file.unlink(missing_ok=True)
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")


def make_cases(library: Library, half: str, seed: int, per_library: int) -> Iterator[Case]:
    """Targets rope computes on the library, kept when the suite stays green on them; the
    anchor's time (compute, apply, suite before and after) is measured on the way."""
    from tests.support.sample_repos import commit_all

    rng = random.Random(f"{seed}:{library.name}")
    made = 0
    for n, candidate in enumerate(draw(library.repo, library.package, rng, per_library * 4)):
        if made >= per_library:
            break
        started = time.monotonic()
        target = compute(library.repo, candidate)
        if target is None or len(target.changes) < MIN_FILES:
            continue  # a case is a change across files (one can be left behind)
        copy = clone(library.repo, WORK / "anchor" / library.name)
        _passed, before_seconds, _ = suite(copy, f"corpus-anchor-{library.name}-{n}-b", 10_000)
        write_target(copy, target)
        commit_all(copy, f"rope: {target.kind} {target.old}")
        passed, after_seconds, problem = suite(copy, f"corpus-anchor-{library.name}-{n}", 10_000)
        if problem or passed < library.tests:
            print(f"    drop {target.kind} {target.old}: {problem or 'fewer tests pass'}")
            continue
        anchor = time.monotonic() - started
        made += 1
        print(
            f"    case {library.name} {target.kind} {target.old} -> {target.new}: "
            f"{len(target.changes)} files, anchor {anchor:.1f}s (suites {before_seconds:.1f}s "
            f"+ {after_seconds:.1f}s)",
            flush=True,
        )
        yield Case(library.name, half, target, round(anchor, 1))


def tree_state(tree: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(tree)): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(tree).parts
    }


async def run_case(
    stage: Stage, case: Case, model: str, library: Library, number: int, reference: str | None
) -> Outcome:
    from prflow.refactor.run_models import RefactorRequest

    tree = clone(library.repo, WORK / "runs" / f"{library.name}-{number}")
    before = tree_state(tree)
    stage.model.route(routes("known" if model == "chaos" else model, case.target, tree))
    seen = {r: len(stage.model.requests_of(r)) for r in stage.model._routes}
    request = RefactorRequest.model_validate(
        {
            "repo": str(tree),
            "directive": case.target.directive,
            "apply": True,
            "max_retries": 1,
            "plans": stage.plans,
            "github_task_queue": stage.settings.temporal.github_task_queue,
        }
    )
    started = time.monotonic()
    result = await stage.run(request, f"corpus-{number}-{model}", kill=model == "chaos")
    wall = time.monotonic() - started
    after = tree_state(tree)
    out = Outcome(
        library.name, case.half, case.target.kind, model, result.status.value, False, wall
    )
    out.detail = result.reason[:160]
    if model == "known":
        expected = dict(before)
        for path, text in case.target.changes.items():
            if text is None:
                expected.pop(path, None)
            else:
                expected[path] = text.encode()
        green = not (result.tests_after.get("failed", 0) or result.tests_after.get("errors", 0))
        out.goal_met = result.status.value == "validated" and after == expected and green
        out.extra = {"exact": after == expected, "green": green, "patch": stage.patch(result)}
    elif model == "left_behind":
        out.goal_met = result.status.value == "aborted" and not result.applied and after == before
    elif model == "nonsense":
        out.goal_met = result.status.value == "aborted" and after == before
    else:
        resent = resent_turns(stage.model, seen)
        same = reference is not None and stage.patch(result) == reference
        out.goal_met = result.status.value == "validated" and same and resent == 0
        out.extra = {"same_patch": same, "turns_paid_twice": resent}
    return out


def report(outcomes: list[Outcome], cases: list[Case]) -> None:
    print("\n  half      model        cases  goal met")
    for half in ("tune", "held_out"):
        for model in MODELS:
            rows = [o for o in outcomes if o.half == half and o.model == model]
            if rows:
                met, n = sum(o.goal_met for o in rows), len(rows)
                print(f"  {half:<9} {model:<12} {n:>5}  {met}/{n} ({met / n:.0%})")
    known = [o.wall for o in outcomes if o.model == "known"]
    anchors = [c.anchor_seconds for c in cases]
    if known and anchors:
        ratio = statistics.median(known) / statistics.median(anchors)
        print(
            f"median wall: prflow known-target {statistics.median(known):.1f}s, rope + two "
            f"suite runs {statistics.median(anchors):.1f}s"
        )
        print(f"ratio (prflow known-target median wall / rope anchor median wall): {ratio:.2f}")


def save(outcomes: list[Outcome]) -> None:
    (WORK / "outcomes.json").write_text(
        json.dumps(
            [
                asdict(o) | {"extra": {k: v for k, v in o.extra.items() if k != "patch"}}
                for o in outcomes
            ],
            indent=1,
            default=str,
        )
    )


async def bench(args: argparse.Namespace) -> int:
    WORK.mkdir(parents=True, exist_ok=True)
    models = [m for m in args.models.split(",") if m]
    # the budget counts from the start (the library draw included), so a run ends in time
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    async with corpus_stage(WORK / "state") as stage:
        print(f"picking {args.libraries} libraries (seed {args.seed})", flush=True)
        libraries = pick_libraries(args.seed, args.libraries, args.max_suite_seconds)
        makers = []
        for library, half in libraries:
            print(
                f"  {library.name} {library.version} ({half}): {library.tests} tests in "
                f"{library.suite_seconds}s",
                flush=True,
            )
            makers.append(make_cases(library, half, args.seed, args.cases_per_library))
        by_name = {lib.name: lib for lib, _ in libraries}
        chaos_pick = random.Random(f"{args.seed}:chaos")  # which cases also get a SIGKILL run
        cases: list[Case] = []
        outcomes: list[Outcome] = []
        number = 0
        while makers and (not args.max_cases or len(cases) < args.max_cases):
            if deadline is not None and time.monotonic() > deadline:
                print(f"time budget of {args.minutes} minutes spent: no new case started")
                break
            maker = makers.pop(0)  # round robin over the libraries (both halves early)
            case = next(maker, None)
            if case is None:
                continue
            makers.append(maker)
            cases.append(case)
            reference: str | None = None
            chaos = chaos_pick.random() < args.chaos_share
            for model in models:
                if model == "chaos" and not chaos:
                    continue
                number += 1
                outcome = await run_case(
                    stage, case, model, by_name[case.library], number, reference
                )
                if model == "known":
                    reference = str(outcome.extra.get("patch"))
                outcomes.append(outcome)
                save(outcomes)  # after each run: a stopped bench keeps what it measured
                extra = {k: v for k, v in outcome.extra.items() if k != "patch"}
                why = "" if outcome.goal_met else outcome.detail
                print(
                    f"  {case.library:<14} {case.half:<8} {case.target.kind:<9} {model:<11} "
                    f"{outcome.status:<10} goal {'met' if outcome.goal_met else 'MISSED'} "
                    f"{outcome.wall:6.1f}s {extra or ''} {why}",
                    flush=True,
                )
        print(
            f"\nlibraries: {len(libraries)}, cases: {len(cases)} "
            f"({sum(c.half == 'tune' for c in cases)} tuning, "
            f"{sum(c.half == 'held_out' for c in cases)} held out)"
        )
        report(outcomes, cases)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--libraries", type=int, default=6)
    parser.add_argument("--cases-per-library", type=int, default=4)
    parser.add_argument("--max-cases", type=int, default=0)
    parser.add_argument(
        "--minutes",
        type=float,
        default=0,
        help="Start no new case this long after the bench started, the draw included (0: none)",
    )
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument(
        "--chaos-share",
        type=float,
        default=1.0,
        help="Share of the cases (a seeded pick) that also get the chaos run (default: all)",
    )
    parser.add_argument(
        "--max-suite-seconds",
        type=float,
        default=120,
        help="A library whose suite takes longer here is not eligible (default 120)",
    )
    return asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
