"""``python -m bench.refactor.chaos [--runs N] [--seed S]``: refactor runs whose worker is
SIGKILLed at a random moment.

One undisturbed run of the end-to-end refactor (:mod:`bench.refactor.e2e`), then N
runs on the same stage, each with the ``prflow worker`` subprocess SIGKILLed once
at a seeded random moment within 90 % of the undisturbed wall time and restarted.
Per run: whether it completed (validated), finished tasks redone (attempts beyond
the first), completed model turns sent again (a request for a conversation turn
that was already answered; the turn in flight at the kill may be sent twice and
is counted apart), and whether its combined patch is byte-identical to the
undisturbed run's. The last line is the ratio of median wall times, chaos over
undisturbed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from bench.refactor.e2e import one_run, request
from bench.refactor.e2e_stage import Stage, refactor_stage
from prflow.config import cached_settings
from prflow.refactor.run_models import RefactorResult
from prflow.store.blobs import get_text
from workflows.refactor import RefactorWorkflow

ROOT = Path(__file__).resolve().parents[1] / ".work" / "refactor-chaos"
KILL_WINDOW = 0.9


@dataclass
class Record:
    number: int
    kill_after: float | None
    wall: float
    completed: bool
    tasks_redone: int
    turns_resent: int
    in_flight_resent: int
    same_patch: bool


def patch_of(result: RefactorResult) -> str:
    key = result.artifact_keys.get("combined.patch")
    return get_text(cached_settings().resolved_database_url(), key) if key else ""


def resends(stage: Stage, seen: dict[str, int]) -> tuple[int, int]:
    """(completed turns sent again, in-flight turns sent again) since ``seen``.

    In each conversation, in the order requests arrived: a turn asked for again after a
    later turn was already asked for went backwards (a completed turn resent); a repeat
    of the latest turn is the one in flight at the kill.
    """
    completed = in_flight = 0
    for route in stage.model._routes:
        latest = -1
        asked: set[int] = set()
        for req in stage.model.requests_of(route)[seen.get(route, 0) :]:
            turn = -1 if req.turn is None else req.turn
            if turn in asked:
                if turn < latest:
                    completed += 1
                else:
                    in_flight += 1
            asked.add(turn)
            latest = max(latest, turn)
    return completed, in_flight


def route_counts(stage: Stage) -> dict[str, int]:
    return {r: len(stage.model.requests_of(r)) for r in stage.model._routes}


async def killed_run(stage: Stage, number: int, kill_after: float) -> tuple[RefactorResult, float]:
    started = time.monotonic()
    handle = await stage.client.start_workflow(
        RefactorWorkflow.run,
        request(stage),
        id=f"bench-chaos-{number}",
        task_queue=stage.settings.temporal.task_queue,
    )
    await asyncio.sleep(kill_after)
    stage.worker.kill()
    await stage.worker.restart()
    result = await asyncio.wait_for(handle.result(), 900)
    return result, time.monotonic() - started


async def bench(runs: int, seed: int) -> int:
    rng = random.Random(seed)
    async with refactor_stage(ROOT) as stage:
        seen = route_counts(stage)
        base, base_wall = await one_run(stage, "bench-chaos-0")
        reference = patch_of(base)
        records = [Record(0, None, base_wall, base.status.value == "validated", 0, 0, 0, True)]
        for number in range(1, runs + 1):
            seen = route_counts(stage)
            kill = round(rng.uniform(1.0, base_wall * KILL_WINDOW), 1)
            result, wall = await killed_run(stage, number, kill)
            resent, in_flight = resends(stage, seen)
            records.append(
                Record(
                    number,
                    kill,
                    wall,
                    result.status.value == "validated",
                    sum(max(0, t.attempts - 1) for t in result.tasks),
                    resent,
                    in_flight,
                    patch_of(result) == reference,
                )
            )
            r = records[-1]
            print(
                f"  run {r.number:>2}: kill at {kill:5.1f}s, wall {wall:6.1f}s, completed "
                f"{r.completed}, tasks redone {r.tasks_redone}, completed turns resent "
                f"{r.turns_resent}, in-flight resent {r.in_flight_resent}, same patch "
                f"{r.same_patch}",
                flush=True,
            )
        chaos = records[1:]
        print(
            f"undisturbed: {base_wall:.1f}s; chaos runs: {len(chaos)}, completed "
            f"{sum(r.completed for r in chaos)}, tasks redone {sum(r.tasks_redone for r in chaos)}"
            f", completed turns resent {sum(r.turns_resent for r in chaos)}, identical patches "
            f"{sum(r.same_patch for r in chaos)}/{len(chaos)} (seed {seed})"
        )
        median = statistics.median(r.wall for r in chaos) if chaos else base_wall
        print(f"ratio (median chaos wall / undisturbed wall): {median / base_wall:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    return asyncio.run(bench(args.runs, args.seed))


if __name__ == "__main__":
    raise SystemExit(main())
