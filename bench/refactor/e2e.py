"""``python -m bench.refactor.e2e [--runs N]``: the refactor kind end to end on a real package.

Each run renames ``want_bytes`` across ``itsdangerous`` 2.2.0 (see
:mod:`bench.refactor.e2e_stage`) with scripted model turns: index, the whole
suite before, planning, three tasks as child workflows (two of them side by
side), mapped tests, the whole suite after, artifacts. Measured per run: wall
time, prompt tokens per changed file and model requests per task. The anchor
is the seed's bar for a 20-file repository (5 minutes wall, 8,000 tokens per
file); the last line is the ratio of the median wall time to it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from bench.refactor.e2e_stage import DIRECTIVE, Stage, refactor_stage
from prflow.agent.planning import phase_plans
from prflow.refactor.kind import REFACTOR
from prflow.refactor.run_models import MODEL_PHASES, RefactorRequest, RefactorResult
from workflows.refactor import RefactorWorkflow

ROOT = Path(__file__).resolve().parents[1] / ".work" / "refactor-e2e"
SEED_WALL_SECONDS = 300.0
SEED_TOKENS_PER_FILE = 8000


def request(stage: Stage, **fields: object) -> RefactorRequest:
    return RefactorRequest.model_validate(
        {
            "repo": str(stage.repo),
            "directive": DIRECTIVE,
            "plans": phase_plans(stage.settings, REFACTOR, MODEL_PHASES),
            "allow_unsandboxed": True,
            "github_task_queue": stage.settings.temporal.github_task_queue,
            **fields,
        }
    )


async def one_run(stage: Stage, workflow_id: str, **fields: object) -> tuple[RefactorResult, float]:
    started = time.monotonic()
    handle = await stage.client.start_workflow(
        RefactorWorkflow.run,
        request(stage, **fields),
        id=workflow_id,
        task_queue=stage.settings.temporal.task_queue,
    )
    result = await asyncio.wait_for(handle.result(), 900)
    return result, time.monotonic() - started


def row(number: int, result: RefactorResult, wall: float) -> str:
    files = max(1, len(result.changed_files))
    tasks = max(1, len(result.tasks))
    return (
        f"  {number:>3}  {result.status.value:<9}  {wall:7.1f}  {len(result.changed_files):>5}  "
        f"{result.input_tokens / files:>10.0f}  {result.requests / tasks:>9.1f}  "
        f"{result.pass_rate if result.pass_rate is not None else float('nan'):>6.2f}"
    )


async def bench(runs: int) -> int:
    async with refactor_stage(ROOT) as stage:
        print(f"repository: {stage.repo.name} (real sdist), directive: {DIRECTIVE}")
        print("  run  status        wall s  files  tokens/file  req/task  pass")
        walls: list[float] = []
        results: list[RefactorResult] = []
        for number in range(1, runs + 1):
            result, wall = await one_run(stage, f"bench-e2e-{number}")
            print(row(number, result, wall), flush=True)
            walls.append(wall)
            results.append(result)
        if any(r.status.value != "validated" for r in results):
            print("a run did not validate", file=sys.stderr)
            return 1
        median = statistics.median(walls)
        last = results[-1]
        tokens = last.input_tokens / max(1, len(last.changed_files))
        print(
            f"tasks: {len(last.tasks)} ({', '.join(t.task_id for t in last.tasks)}); tests "
            f"before {last.tests_before}, after {last.tests_after}"
        )
        print(f"prompt tokens per changed file: {tokens:.0f} (seed bar {SEED_TOKENS_PER_FILE})")
        print(f"median wall time {median:.1f} s vs the seed's {SEED_WALL_SECONDS:.0f} s bar")
        print(f"ratio (median wall / seed bar): {median / SEED_WALL_SECONDS:.3f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    return asyncio.run(bench(args.runs))


if __name__ == "__main__":
    raise SystemExit(main())
