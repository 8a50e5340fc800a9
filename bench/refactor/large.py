"""``python -m bench.refactor.large``: a rename across more than 100 files of a repository of
more than 1,000, undisturbed and with the worker SIGKILLed mid-run, against rope.

The repository is the Django 5.1.4 sdist (fetched once, committed with a fixed date). The
directive renames ``django.utils.translation.gettext`` and ``gettext_lazy`` everywhere;
rope computes the target (every definition, import, alias and call; one rename after the
other). The scripted model knows the target:
its plan is batches of at most 40 files (the code batches side by side, the tests after
them), each executor makes its batch's target edits. The run continues-as-new after every
step (``tasks_per_run=1``) and its tests are the user's command (Django's own runner on
its 236 i18n tests: no JUnit report, so compared by unittest's summary line). Printed: wall
time, steps, runs, the largest history (events and payload) of any run, whether the tree
equals rope's target, then the same with
the worker SIGKILLed at a seeded moment (same patch? model turns paid twice?), and the
anchor: rope computing and applying the change plus the same suite run twice. The last
line is the ratio of prflow's undisturbed wall time over the anchor's.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import time
from pathlib import Path

from bench.refactor_corpus.__main__ import clone, tree_state, write_target
from bench.refactor_corpus.libraries import fetch, suite
from bench.refactor_corpus.models import routes
from bench.refactor_corpus.stage import Stage, corpus_stage, resent_turns
from bench.refactor_corpus.targets import Candidate, Target, compute
from prflow.refactor.run_models import RefactorRequest, RefactorResult
from tests.replay.history_payloads import largest_payload
from tests.support.sample_repos import commit_all

WORK = Path(__file__).resolve().parents[1] / ".work" / "refactor-large"
NAME, VERSION = "django", "5.1.4"
DEFINED_IN = "django/utils/translation/__init__.py"
RENAMES = (("def gettext(", "gettext"), ("\ngettext_lazy = ", "gettext_lazy"))
OLD = "gettext, gettext_lazy"
TEST_COMMAND = "python tests/runtests.py --parallel 1 i18n"


def target_of(repo: Path) -> tuple[Target, float]:
    """Both renames as one change set: rope renames on a scratch clone, one after the other."""
    scratch = clone(repo, WORK / "rope")
    started = time.monotonic()
    directives: list[str] = []
    for marker, name in RENAMES:
        text = (scratch / DEFINED_IN).read_text(encoding="utf-8")
        offset = text.index(marker) + marker.index(name)
        step = compute(scratch, Candidate("function", DEFINED_IN, name, offset))
        if step is None:
            raise SystemExit(f"rope could not rename {name}")
        write_target(scratch, step)
        directives.append(f"{name} to {step.new}")
    seconds = time.monotonic() - started
    changes: dict[str, str | None] = {}
    for path in sorted({*tree_state(scratch), *tree_state(repo)}):
        old, new = repo / path, scratch / path
        if not new.exists():
            changes[path] = None
        elif not old.exists() or old.read_bytes() != new.read_bytes():
            changes[path] = new.read_text(encoding="utf-8")
    directive = (
        f"Rename {' and '.join(directives)} in {DEFINED_IN} everywhere: definitions, every "
        "import, alias, caller and test"
    )
    return Target("function", directive, OLD, "renamed", changes), seconds


async def history_bounds(stage: Stage, workflow_id: str) -> tuple[int, int, int]:
    """(runs, most events in one run, largest payload in bytes) over the run chain."""
    runs = most = largest = 0
    async for execution in stage.client.list_workflows(f'WorkflowId = "{workflow_id}"'):
        runs += 1
        handle = stage.client.get_workflow_handle(workflow_id, run_id=execution.run_id)
        history = await handle.fetch_history()
        most = max(most, len(history.events))
        largest = max(largest, largest_payload(history.to_json_dict())[1])
    return runs, most, largest


async def one(
    stage: Stage, repo: Path, target: Target, name: str, *, kill: bool
) -> tuple[RefactorResult, float, Path]:
    tree = clone(repo, WORK / "runs" / name)
    stage.model.route(routes("known", target, tree))
    request = RefactorRequest.model_validate(
        {
            "repo": str(tree),
            "directive": target.directive,
            "apply": True,
            "max_retries": 1,
            "test_command": TEST_COMMAND,
            "tasks_per_run": 1,
            "max_concurrency": 2,
            "plans": stage.plans,
            "github_task_queue": stage.settings.temporal.github_task_queue,
        }
    )
    started = time.monotonic()
    result = await stage.run(request, f"large-{name}", kill=kill)
    return result, time.monotonic() - started, tree


def matches(tree: Path, before: dict[str, bytes], target: Target) -> bool:
    expected = dict(before)
    for path, text in target.changes.items():
        if text is None:
            expected.pop(path, None)
        else:
            expected[path] = text.encode()
    return tree_state(tree) == expected


def prepare() -> tuple[Path, Target, float]:
    """The repository and rope's target (the first part of the anchor's time)."""
    WORK.mkdir(parents=True, exist_ok=True)
    repo = fetch(WORK, NAME, VERSION)
    assert repo is not None
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True
    )
    target, rope_seconds = target_of(repo)
    print(
        f"repository: Django {VERSION} sdist, {len(listed.stdout.splitlines())} files; rename "
        f"{OLD}: {len(target.changes)} files changed by rope in {rope_seconds:.1f}s",
        flush=True,
    )
    return repo, target, rope_seconds


async def bench(seed: int, repo: Path, target: Target, rope_seconds: float) -> int:
    async with corpus_stage(WORK / "state") as stage:
        stage.rng.seed(seed)
        stage.result_timeout = 4 * 3600  # a step's audit over the whole tree takes minutes
        anchor_tree = clone(repo, WORK / "anchor")
        started = time.monotonic()
        _, before_s, _ = suite(anchor_tree, "large-anchor-before", 10_000, TEST_COMMAND)
        write_target(anchor_tree, target)
        commit_all(anchor_tree, "rope rename")
        passed, after_s, problem = suite(anchor_tree, "large-anchor-after", 10_000, TEST_COMMAND)
        anchor = rope_seconds + time.monotonic() - started
        print(
            f"anchor: rope {rope_seconds:.1f}s + suite {before_s:.1f}s + apply + suite "
            f"{after_s:.1f}s = {anchor:.1f}s ({passed} passed{'; ' + problem if problem else ''})",
            flush=True,
        )
        baseline = tree_state(repo)
        result, wall, tree = await one(stage, repo, target, "undisturbed", kill=False)
        runs, events, payload = await history_bounds(stage, "large-undisturbed")
        reference = stage.patch(result)
        print(
            f"prflow undisturbed: {result.status.value} ({result.reason[:120]}); wall {wall:.1f}s; "
            f"{len(result.tasks)} steps ({', '.join(t.task_id for t in result.tasks)}); "
            f"{len(result.changed_files)} files; {runs} runs (continue-as-new), at most "
            f"{events} events and {payload} payload bytes in one run; tree equals rope's "
            f"target: {matches(tree, baseline, target)}",
            flush=True,
        )
        seen = {r: len(stage.model.requests_of(r)) for r in stage.model._routes}
        chaos, chaos_wall, chaos_tree = await one(stage, repo, target, "chaos", kill=True)
        print(
            f"prflow with a SIGKILL: {chaos.status.value}; wall {chaos_wall:.1f}s; same patch "
            f"{stage.patch(chaos) == reference}; model turns paid twice "
            f"{resent_turns(stage.model, seen)}; tree equals rope's target: "
            f"{matches(chaos_tree, baseline, target)}",
            flush=True,
        )
    print(f"ratio (prflow undisturbed wall / rope + two suite runs): {wall / anchor:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=26)
    seed = parser.parse_args().seed
    return asyncio.run(bench(seed, *prepare()))


if __name__ == "__main__":
    raise SystemExit(main())
