"""``python -m bench.conversation [--prs 50] [--events 10] [--seed 28]``: the conversation
after a review, under load and crashes.

N PRs on the loopback GitHub (a real git repository each) get prflow's review and
their conversation; then M scripted events per PR (replies that accept, rebut or ask,
pushes that fix some findings and leave others, redeliveries and polls of earlier
events, ``/prflow ask`` in a PR comment, ``/prflow fix`` in a finding's thread whose edit
keeps the tests green or breaks one) go through the real webhook app at ``--rate`` events
a second, while the ``prflow worker`` is SIGKILLed 3 times and the Temporal server
once (SIGKILL, restart on the same history) at seeded points. Prints the figures of
issue 28, then says that no well-known tool does this job to anchor a ratio to.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from temporalio.client import WorkflowHandle

from bench.conversation.drive import Driver, model_routes
from bench.conversation.figures import Figures, expected_events, judge, median, percentile
from bench.conversation.repos import (
    BenchPr,
    build_pr,
    post_bench_review,
    pr_ref,
    start_conversation,
)
from bench.conversation.script import Kind, Script, draw
from bench.conversation.stage import Stage, conversation_stage
from bench.impact.layout import DEFAULT_ROOT, fresh_dir
from prflow.config import cached_settings
from prflow.conversation.kind import conversation_id
from prflow.conversation.state import ConversationState
from workflows.conversation import ConversationWorkflow

SETTLE_SECONDS = 300.0


def _say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.conversation", description=__doc__)
    parser.add_argument("--prs", type=int, default=50, help="pull requests (default 50)")
    parser.add_argument("--events", type=int, default=10, help="scripted events per PR")
    parser.add_argument("--seed", type=int, default=28, help="seed of the script and kills")
    parser.add_argument(
        "--rate", type=float, default=1.0, help="deliveries a second, all PRs together"
    )
    parser.add_argument("--worker-kills", type=int, default=3)
    parser.add_argument("--server-kills", type=int, default=1, choices=(0, 1))
    parser.add_argument(
        "--history-limit",
        type=int,
        default=None,
        help="the conversation's continue-as-new threshold (default: the product's)",
    )
    args = parser.parse_args(argv)
    if args.prs < 1 or args.events < 1 or args.rate <= 0:
        parser.error("--prs and --events must be at least 1, --rate above 0")
    if args.history_limit is not None and args.history_limit < 50:
        parser.error("--history-limit must be at least 50")
    return args


async def _settle(stage: Stage, script: Script) -> dict[int, ConversationState | None]:
    """Each conversation's state once it handled every scripted event (or the wait ran out)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    states: dict[int, ConversationState | None] = {}
    for pr in script.prs:
        ref = pr_ref(pr.number)
        handle: WorkflowHandle[Any, Any] = stage.client.get_workflow_handle(conversation_id(ref))
        state: ConversationState | None = None
        while time.monotonic() < deadline:
            try:
                state = await handle.query(ConversationWorkflow.status)
            except Exception:  # the server restarting, a worker starting: ask again
                state = None
            if state and state.tally.events >= expected_events(pr) and not state.pending:
                break
            await asyncio.sleep(0.5)
        states[pr.number] = state
    return states


async def _run(args: argparse.Namespace) -> int:
    script = draw(args.seed, args.prs, args.events, args.worker_kills, args.server_kills)
    root = fresh_dir(DEFAULT_ROOT / "conversation")
    begun = time.monotonic()
    async with conversation_stage(root) as stage:
        stage.model.route(model_routes(script))
        at_once = asyncio.Semaphore(4)

        async def reviewed(number: int, findings: int) -> BenchPr:
            async with at_once:
                built = await asyncio.to_thread(
                    build_pr, stage.github, root / "repos", number, findings
                )
                await asyncio.to_thread(post_bench_review, stage.github, built)
                await start_conversation(stage.client, stage.settings, built, args.history_limit)
                return built

        prs = list(await asyncio.gather(*(reviewed(p.number, p.findings) for p in script.prs)))
        _say(f"{len(prs)} PRs reviewed, conversations started ({time.monotonic() - begun:.1f}s)")
        driver = Driver(stage, script, prs)
        delivering = time.monotonic()
        await driver.run(args.rate)
        _say(f"{len(script.order)} deliveries taken ({time.monotonic() - delivering:.1f}s)")
        states = await _settle(stage, script)
        wall = time.monotonic() - delivering
        figures = judge(
            stage.github,
            stage.model,
            cached_settings().resolved_database_url(),
            script.prs,
            prs,
            driver.acted,
            states,
            stage.crash_times,
        )
        retried = sum(1 for a in driver.acted.values() if a.attempts > 1)
        _print(args, script, figures, wall, retried, stage.restarts)
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def _print(
    args: argparse.Namespace,
    script: Script,
    f: Figures,
    wall: float,
    retried: int,
    restarts: list[str],
) -> None:
    kinds = {k: 0 for k in Kind}
    for pr in script.prs:
        for event in pr.events:
            kinds[event.kind] += 1
    mix = ", ".join(f"{k.value} {n}" for k, n in kinds.items())
    for problem in f.problems[:20]:
        print(f"  problem: {problem}")
    print(f"script: seed {args.seed}, {args.prs} PRs x {args.events} events ({mix})")
    print(
        f"crashes: worker SIGKILLed {restarts.count('worker')}, Temporal server SIGKILLed and "
        f"restarted {restarts.count('server')}; deliveries redelivered after a refusal {retried}"
    )
    print(f"wall from first delivery to settled: {wall:.1f}s at {args.rate} deliveries/s")
    print(f"conversations continued-as-new: {f.continued} times in all")
    once = _pct(f.events_once, f.events)
    print(f"events handled exactly once: {f.events_once}/{f.events} ({once})")
    print(
        f"replies posted exactly once: {f.replies_once}/{f.replies} "
        f"({_pct(f.replies_once, f.replies)}; missing {f.replies_missing}, "
        f"twice {f.replies_twice}); "
        f"model requests re-sent after a kill {f.model_requests_resent}"
    )
    print(f"asks answered exactly once: {f.asks_once}/{f.asks} ({_pct(f.asks_once, f.asks)})")
    print(
        f"fixes delivered exactly once: {f.fixes_once}/{f.fixes} "
        f"({_pct(f.fixes_once, f.fixes)}; pushed one validated commit {f.fixes_pushed}, "
        f"broke a test and pushed nothing {f.fixes_refused})"
    )
    print(f"fixes that pushed a regression: {f.fixes_regressed} (goal 0)")
    print(
        f"threads resolved exactly when their finding no longer holds: {f.threads_right}/"
        f"{f.threads} ({_pct(f.threads_right, f.threads)})"
    )
    print(f"rebutted findings raised again: {f.rebutted_raised_again} of {f.rebutted_expected}")
    print(
        f"webhook delivery to reply or ask answer posted (model {2.0:.0f} s a turn): p50 "
        f"{median(f.latencies):.1f}s, p95 {percentile(f.latencies, 0.95):.1f}s, "
        f"max {max(f.latencies, default=float('nan')):.1f}s (goal p50 <= 20 s)"
    )
    if f.crossed:
        print(
            f"  of which {len(f.crossed)} had a crash between delivery and answer: p50 "
            f"{median(f.crossed):.1f}s, p95 {percentile(f.crossed, 0.95):.1f}s"
        )
    if f.fix_latencies:
        print(
            f"webhook delivery to /prflow fix note (refactor run, tests before and after): p50 "
            f"{median(f.fix_latencies):.1f}s, p95 {percentile(f.fix_latencies, 0.95):.1f}s, "
            f"max {max(f.fix_latencies):.1f}s"
        )
    print(
        "anchor: none - no well-known tool keeps a review's conversation (answers, "
        "rebuttals, resolutions) across crashes, so no ratio is printed"
    )


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(_run(_arguments(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
