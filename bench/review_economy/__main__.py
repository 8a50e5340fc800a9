"""``python -m bench.review_economy``: what a standard review sends to the model, per phase.

For each of four real release pairs (sdists from PyPI made into a two-commit
repository, as ``bench.review`` does), one ``prflow review --depth standard``
with the representative scripted conversation of ``bench.review`` and one
``prflow impact`` with its agent (the anchor), both served by the scripted
Messages API, which applies Anthropic's prompt-cache rules (breakpoints,
20-block lookback, 1,024-token minimum). Per phase: requests, prompt tokens
(input + cache write + cache read), tokens written to the cache (billed at 1.25× the
input price), the share read from the cache, and
repeats: requests identical to an earlier one of the run (model, system,
tools, messages; cache marks and max_tokens aside). Last: review/impact
prompt tokens per pair and overall.

Goals (issue 20): ≤ 400k input tokens per standard review, ≤ 8× impact,
≥ 80 % cache reads after turn 1, 0 repeats.

``--default-caps`` runs the reviews with the default caps instead of a $20 budget,
and the cross-reference resolver asks for two deep dives (each reads a window of its
file, as the reviewer prompt asks, and reports): it prints, per pair, which phases
were cut and why (issue 20 item 8: planned work runs within the caps). ``--pairs N``
takes the first N pairs. ``--whole-file-reviewers`` scripts reviewers as they worked
before the prompt showed hunks with wide context (fetch the diff again, read the
whole file), for comparison.

``--latency SECONDS`` (default 1.0) is how long every scripted answer takes, as a real
model does: a prompt-cache prefix becomes readable only when the response that wrote it
begins, so agents started together (the reviewers) race to write their shared prefix
unless they wait for the first; without latency the race never shows. ``--latency 0``
answers at once.

``--sampled N`` reviews N release pairs drawn by :mod:`bench.review_economy.eval_set`
(seeded, nobody picked them) instead of the four named below, and reports the tuning and
the held-out half apart; ``--half tune`` (or ``held_out``) reviews only that half's pairs,
so tuning never runs the held-out half.

``--exploring`` scripts every agent as a model that explores five turns whatever its prompt
says, with a planner that repeats dimension names (:mod:`bench.review_economy.exploring`);
it also prints, per pair, the reviewer conversations (planned, gap, investigation and deep
dive), all requests, and the review's history events caused by its children's messages per
child model turn (:mod:`bench.review_economy.parent_events`), and the bounds the review was
sized to (the report's ``planning`` phase). Goals (issue 29 item 5): a
standard review <= 400k prompt tokens and <= 8x impact, <= 1.0 parent events per child turn.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.eval_sets import HALVES, ReleasePair
from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT, fresh_dir
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF, git
from bench.review.conversation import (
    WINDOW_LINES,
    changed_sources,
    first_added_line,
    impact_conversation,
    review_conversation,
)
from bench.review_economy.eval_set import draw, pair_repo
from bench.review_economy.exploring import REVIEWER_ROUTES, exploring_impact, exploring_review
from bench.review_economy.parent_events import parent_events
from prflow.llm.request_identity import request_digest
from prflow.review.run_models import MODEL_PHASES
from tests.support.review_runs import CROSS_REF, INVESTIGATION, every_pass, reading, submit
from tests.support.scripted_anthropic import RecordedRequest, ScriptedAnthropic, Turn

PAIRS = [
    ("requests", "2.31.0", "2.32.0"),
    ("werkzeug", "2.3.8", "3.0.0"),
    ("click", "7.1.2", "8.0.0"),
    ("packaging", "21.3", "22.0"),
]
MIN_CACHEABLE_TOKENS = 1024
CACHED_AFTER_TURN_1_GOAL = 0.8
BUDGET_USD = "20"
DEFAULT_LATENCY_SECONDS = 1.0
"""Every scripted answer's delay: a model answering a short turn takes about a second."""
COLD = {"PRFLOW_TEMPORAL__WARM_SECONDS": "0"}
"""Each command starts and stops its own server: no warm worker outlives the bench."""


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _pairs(root: Path, args: argparse.Namespace) -> list[ReleasePair]:
    """The named pairs (all in the tuning half: they were picked by hand), or a drawn set."""
    if args.sampled:
        drawn = draw(root, args.sampled)
        return [p for p in drawn if args.half is None or p.half == args.half]
    return [ReleasePair("pypi", *named) for named in PAIRS[: args.pairs]]


@dataclasses.dataclass
class PairResult:
    half: str
    review: int
    impact: int
    events_per_child_turn: float | None


def _half_summary(results: list[PairResult]) -> None:
    """Per half: mean and largest review, review/impact overall, parent events per child turn."""
    for half in HALVES:
        rows = [r for r in results if r.half == half]
        if not rows:
            continue
        reviews = [r.review for r in rows]
        ratio = sum(reviews) / sum(r.impact for r in rows)
        events = [r.events_per_child_turn for r in rows if r.events_per_child_turn is not None]
        tail = f"; parent events per child turn, largest {max(events):.2f}" if events else ""
        mean = sum(reviews) / len(rows)
        print(
            f"{half} half ({len(rows)} pairs): review prompt tokens mean {mean:,.0f}, "
            f"largest {max(reviews):,}; review/impact overall {ratio:.1f}x, largest "
            f"{max(r.review / r.impact for r in rows):.1f}x{tail}"
        )


def _args(repo: Path) -> list[str]:
    return ["--repo", str(repo), "--base", BASE_REF, "--head", HEAD_REF, "--quiet"]


def _run(cli: PrflowCli, server: ScriptedAnthropic, command: list[str], out: Path) -> None:
    env = cli.env() | {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "bench-key"}
    from bench.impact.measure import run_checked

    run_checked([*command, "--output", str(out)], cwd=cli.state, env=env, ok_codes=(0, 1))


def _prompt(usage: dict[str, Any]) -> int:
    return (
        int(usage["input_tokens"])
        + int(usage.get("cache_creation_input_tokens") or 0)
        + int(usage.get("cache_read_input_tokens") or 0)
    )


def _phase_of(request: RecordedRequest, phases: dict[str, str]) -> str:
    return phases.get(str(request.route), "reviewers" if request.route else "impact")


def _figures(requests: list[RecordedRequest], phases: dict[str, str]) -> dict[str, dict[str, int]]:
    """Per phase: requests, prompt tokens, cache-read tokens (all and after turn 1), repeats."""
    seen: Counter[str] = Counter()
    out: dict[str, dict[str, int]] = {}
    for request in requests:
        usage = request.usage
        if usage is None:
            continue
        phase = _phase_of(request, phases)
        row = out.setdefault(
            phase, {"requests": 0, "prompt": 0, "read": 0, "written": 0, "later": 0,
                    "later_read": 0, "repeats": 0},
        )  # fmt: skip
        body = {k: v for k, v in request.body.items() if k != "stream"}
        digest = request_digest(body)
        row["repeats"] += 1 if seen[digest] else 0
        seen[digest] += 1
        prompt, read = _prompt(usage), int(usage.get("cache_read_input_tokens") or 0)
        row["requests"] += 1
        row["prompt"] += prompt
        row["read"] += read
        row["written"] += int(usage.get("cache_creation_input_tokens") or 0)
        if request.turn:  # after each agent's first turn
            row["later"] += prompt
            row["later_read"] += read
    return out


def _total(rows: dict[str, dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for row in rows.values():
        total.update(row)
    return dict(total)


def _line(name: str, row: dict[str, int]) -> str:
    share = row["read"] / row["prompt"] if row["prompt"] else 0.0
    later = row["later_read"] / row["later"] if row["later"] else 0.0
    return (
        f"  {name:<18}{row['requests']:>6}{row['prompt']:>12,}{row['written']:>10,}{share:>9.0%}"
        f"{later:>13.0%}{row['repeats']:>9}"
    )


def _with_deep_dives(repo: Path, routes: dict[str, list[Turn]]) -> dict[str, list[Turn]]:
    """The conversation, the resolver asking for two deep dives that read and report."""
    sources = changed_sources(repo)
    dives = [
        {"question": f"Do callers of {path} still work with the new behaviour?", "files": [path]}
        for path in sources[1:3]
    ]
    # a deep dive is the one reviewer with its own question: it reads a window, as told
    target = first_added_line(repo, sources[1])
    window = {"path": sources[1], "offset_line": max(1, target.number - WINDOW_LINES // 2),
              "limit_lines": WINDOW_LINES}  # fmt: skip
    dive = [reading(("read_file_at_ref", window)), submit("submit_findings", findings=[])]
    return {
        INVESTIGATION: dive,
        **routes,
        # a later pass continues the resolver's conversation: it answers every pass
        CROSS_REF: every_pass(submit("submit_interactions", compounds=[], deep_dives=dives)),
    }


def _dump(
    path: Path, package: str, requests: list[RecordedRequest], phases: dict[str, str]
) -> None:
    """One JSON line per review request: phase, route, turn, prompt tokens and how they split
    between tools, system and each message (at the scripted server's 4 characters a token)."""
    with path.open("a") as out:
        for request in requests:
            if request.usage is None:
                continue
            body = request.body
            messages = [
                (m.get("role"), len(json.dumps(m.get("content"))) // 4)
                for m in body.get("messages") or []
            ]
            row = {
                "pair": package, "phase": _phase_of(request, phases), "route": request.route,
                "turn": request.turn, "prompt": _prompt(request.usage),
                "written": int(request.usage.get("cache_creation_input_tokens") or 0),
                "tools": len(json.dumps(body.get("tools") or [])) // 4,
                "system": len(json.dumps(body.get("system") or "")) // 4,
                "messages": messages,
            }  # fmt: skip
            out.write(json.dumps(row) + "\n")


def _conversations(requests: list[RecordedRequest]) -> tuple[int, int]:
    """(reviewer conversations, all agent conversations): first turns answered."""
    first = [r for r in requests if r.turn == 0 and r.usage is not None]
    return sum(1 for r in first if r.route in REVIEWER_ROUTES), len(first)


def _slowed(turns: list[Turn], latency: float) -> list[Turn]:
    return [dataclasses.replace(turn, delay_seconds=latency) for turn in turns]


def _detail(report: dict[str, Any], phase: str) -> str:
    """What the report says of ``phase`` (the bounds the review was sized to, when it was)."""
    found = [p.get("detail") or "" for p in report.get("phases", []) if p.get("name") == phase]
    return found[0] if found and found[0] else "-"


def _cuts(report: dict[str, Any]) -> str:
    cut = [f"{p['name']}: {p['detail']}" for p in report.get("phases", [])
           if p.get("state") == "failed"]  # fmt: skip
    return "; ".join(cut) or "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.review_economy")
    parser.add_argument("--default-caps", action="store_true")
    parser.add_argument("--pairs", type=int, default=len(PAIRS))
    parser.add_argument(
        "--sampled",
        type=int,
        default=0,
        metavar="N",
        help="review N pairs drawn with a fixed seed (tuning and held-out halves) instead",
    )
    parser.add_argument(
        "--half",
        choices=HALVES,
        default=None,
        help="with --sampled: review only this half's pairs (tune on the tuning half, run the "
        "held-out half once at the end)",
    )
    parser.add_argument(
        "--whole-file-reviewers",
        action="store_true",
        help="reviewers fetch their diff again and read whole files (the behaviour before "
        "they were shown hunks with wide context), for comparison",
    )
    parser.add_argument(
        "--latency",
        type=float,
        default=DEFAULT_LATENCY_SECONDS,
        metavar="SECONDS",
        help="how long every scripted answer takes (default %(default)s)",
    )
    parser.add_argument(
        "--exploring",
        action="store_true",
        help="script a model that explores five turns per agent and repeats dimension names",
    )
    parser.add_argument(
        "--dump-requests",
        type=Path,
        default=None,
        metavar="FILE",
        help="append one JSON line per review request (phase, route, turn, prompt tokens split "
        "into tools, system and messages) to FILE, to see where a review's tokens go",
    )
    args = parser.parse_args(argv)
    root = DEFAULT_ROOT
    print(f"scripted model latency: {args.latency:g} s per answer")
    from bench.review.conversation import PHASE_OF_ROUTE

    phases = dict(PHASE_OF_ROUTE) | {INVESTIGATION: "deep_dives"}
    budget = [] if args.default_caps else ["--budget-usd", BUDGET_USD]
    reviews: list[int] = []
    impacts: list[int] = []
    later_shares: list[float] = []
    results: list[PairResult] = []
    try:
        for pair in _pairs(root, args):
            package, base, head = pair.package, pair.base, pair.head
            half = pair.half if args.sampled else "named"
            _progress(f"{pair.label} ({half})")
            repo = pair_repo(root, pair)
            files = len(git(repo, "diff", "--name-only", "-M", BASE_REF, HEAD_REF).splitlines())
            reports = fresh_dir(root / "reports" / f"economy-{package}")
            with ScriptedAnthropic(min_cacheable_tokens=MIN_CACHEABLE_TOKENS) as server:
                routes = (
                    exploring_review(repo)
                    if args.exploring
                    else review_conversation(repo, whole_files=args.whole_file_reviewers)
                )
                if args.default_caps:
                    routes = _with_deep_dives(repo, routes)
                server.route({key: _slowed(turns, args.latency) for key, turns in routes.items()})
                cli = PrflowCli(fresh_dir(root / "state" / f"economy-review-{package}"), COLD)
                command = [str(cli.binary), "review", *_args(repo), "--format", "json",
                           "--depth", "standard", *budget]  # fmt: skip
                _run(cli, server, command, reports / "review.json")
                review_rows = _figures(server.requests, phases)
                if args.dump_requests is not None:
                    _dump(args.dump_requests, package, server.requests, phases)
                done = len(server.requests)
                conversations = _conversations(server.requests)
                events = parent_events(cli.state) if args.exploring else None
                server.route({})
                anchor = exploring_impact(repo) if args.exploring else impact_conversation(repo)
                server.script(_slowed(anchor, args.latency))
                cli = PrflowCli(fresh_dir(root / "state" / f"economy-impact-{package}"), COLD)
                command = [str(cli.binary), "impact", *_args(repo), "--format", "json",
                           "--budget-usd", BUDGET_USD]  # fmt: skip
                _run(cli, server, command, reports / "impact.json")
                impact_rows = _figures(server.requests[done:], {})
            review_total, impact_total = _total(review_rows), _total(impact_rows)
            reviews.append(review_total["prompt"])
            later_shares.append(
                review_total["later_read"] / review_total["later"] if review_total["later"] else 0
            )
            impacts.append(impact_total["prompt"])
            results.append(
                PairResult(half, review_total["prompt"], impact_total["prompt"],
                           events.per_child_turn if events is not None else None)
            )  # fmt: skip
            print(f"{package} {base}→{head} ({files} files, {half})")
            print(f"  {'phase':<18}{'reqs':>6}{'prompt tok':>12}{'written':>10}{'cached':>9}"
                  f"{'cached t>1':>13}{'repeats':>9}")  # fmt: skip
            order = [p for p in MODEL_PHASES if p in review_rows]
            order += [p for p in review_rows if p not in order]
            for phase in order:
                print(_line(phase, review_rows[phase]))
            print(_line("review total", review_total))
            print(_line("impact (anchor)", impact_total))
            if args.default_caps:
                report = json.loads((reports / "review.json").read_text())
                print(f"  default caps: cut phases: {_cuts(report)}; "
                      f"review ${report.get('cost_usd', 0):.4f}")  # fmt: skip
            print(
                "  review/impact prompt tokens: "
                f"{review_total['prompt'] / impact_total['prompt']:.1f}x"
            )
            if events is not None:
                reviewers, everyone = conversations
                print(f"  exploring: {review_total['prompt']:,} prompt tokens, "
                      f"{review_total['requests']} requests, {reviewers} reviewer conversations "
                      f"({everyone} agent conversations), {events.children} child agents, "
                      f"{events.child_turns} child turns; parent: {events.signals} child "
                      f"signals, {events.signal_events} events = "
                      f"{events.per_child_turn:.2f} per child turn")  # fmt: skip
                report = json.loads((reports / "review.json").read_text())
                found = len(report.get("findings", []))
                print(f"  exploring: cut phases: {_cuts(report)}; complete: "
                      f"{report.get('complete')}; findings: {found}")  # fmt: skip
                print(f"  exploring: planning: {_detail(report, 'planning')}")
    except BenchError as err:
        print(f"bench: error: {err}", file=sys.stderr)
        return 2
    met = sum(share >= CACHED_AFTER_TURN_1_GOAL for share in later_shares)
    print(
        "review cached after turn 1 per pair: "
        + ", ".join(f"{share:.1%}" for share in later_shares)
        + f"; goal >= {CACHED_AFTER_TURN_1_GOAL:.0%}: met on {met}/{len(later_shares)}"
    )
    ratios = [r / i for r, i in zip(reviews, impacts, strict=True)]
    print(
        "review/impact prompt tokens per pair: "
        + ", ".join(f"{r:.1f}x" for r in ratios)
        + f"; overall {sum(reviews) / sum(impacts):.1f}x "
        f"(review mean {sum(reviews) / len(reviews):,.0f} tokens)"
    )
    if args.sampled:
        _half_summary(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
