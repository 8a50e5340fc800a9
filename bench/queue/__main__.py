"""Load test of the org-wide queue on loopback: a burst of signed webhook deliveries.

Run: python -m bench.queue [--prs 160] [--pushes 20] [--duplicates 20]. Builds an
organisation of real git repositories on the loopback GitHub, starts the real
``prflow webhook`` receiver and prflow's workers (static mode: no model) on a dev
server, then sends ``prs + duplicates + pushes`` signed deliveries in a burst:
every PR opened, some deliveries sent twice (GitHub redelivery, same delivery id),
and a second push on some PRs while their first run is in flight. It checks every
PR ends with exactly one completed run on its current head and nothing else
completed twice, prints PRs per minute, then the same machine's rate for a trivial
workflow started as many times with the plain temporalio client, and the ratio last.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from bench.queue.bare_workflow import BareWorkflow
from prflow.config import cached_settings, load_settings
from prflow.pr_identifier import PullRequestRef
from prflow.queue.kind import STATUS_QUERY, pr_queue_id
from prflow.queue.state import QueueStatus, RunOutcome
from tests.support.cli_runs import free_port
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_temporal import child_environment, prflow_script
from tests.support.github_org import SimulatedOrg
from tests.support.webhook_payloads import Delivery, pull_request_delivery
from worker.devserver import temporal_binary
from worker.runner import running_workers
from worker.search_attributes import ALL_KEYS

SECRET = "bench-secret"
REPOS = 6
TOKEN = "ghp_bench"


async def _send(http: httpx.AsyncClient, url: str, deliveries: list[Delivery]) -> None:
    gate = asyncio.Semaphore(32)

    async def one(delivery: Delivery) -> None:
        async with gate:
            answer = await http.post(url, content=delivery.body, headers=delivery.headers(SECRET))
            if answer.status_code != 202:
                raise RuntimeError(f"receiver answered {answer.status_code}: {answer.text}")

    await asyncio.gather(*(one(d) for d in deliveries))


async def _until_all_current(
    client: Client, org: SimulatedOrg, prs: list[tuple[str, int]], limit: float
) -> dict[tuple[str, int], QueueStatus]:
    deadline = time.monotonic() + limit
    done: dict[tuple[str, int], QueueStatus] = {}
    while len(done) < len(prs) and time.monotonic() < deadline:
        for repo, number in prs:
            if (repo, number) in done:
                continue
            ref = PullRequestRef(owner=org.org, repo=repo, number=number)
            handle = client.get_workflow_handle(pr_queue_id(ref))
            try:
                status = await handle.query(STATUS_QUERY, result_type=QueueStatus)
            except Exception:
                continue
            if status.running is None and status.state.last_reviewed_sha == org.head(repo, number):
                done[(repo, number)] = status
        await asyncio.sleep(0.5)
    return done


async def _bare_rate(client: Client, runs: int) -> float:
    queue = f"bench-bare-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[BareWorkflow]):
        started = time.perf_counter()
        handles = await asyncio.gather(
            *(
                client.start_workflow(BareWorkflow.run, n, id=f"bare-{queue}-{n}", task_queue=queue)
                for n in range(runs)
            )
        )
        await asyncio.gather(*(h.result() for h in handles))
        elapsed = time.perf_counter() - started
    return runs / elapsed * 60


async def _main(prs: int, pushes: int, duplicates: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="prflow-bench-queue-"))
    os.environ.update(
        PRFLOW_DATA_DIR=str(scratch / "data"),
        PRFLOW_CACHE_DIR=str(scratch / "cache"),
        PRFLOW_DATABASE_URL=f"sqlite:///{scratch / 'prflow.db'}",
        GITHUB_TOKEN=TOKEN,
    )
    os.environ.pop("ANTHROPIC_API_KEY", None)
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(temporal_binary()),
        search_attributes=ALL_KEYS,
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
        dev_server_extra_args=["--dynamic-config-value", "matching.enableFairness=true"],
    )
    with FakeGitHub() as fake:
        fake.add_user("prflow-bot", token=TOKEN)
        os.environ["PRFLOW_GITHUB_API_URL"] = fake.api_url
        cached_settings.cache_clear()
        org = SimulatedOrg(fake, scratch / "org", org="bench-org")
        numbers: list[tuple[str, int]] = []
        for r in range(REPOS):
            org.add_repo(f"repo{r}")
        for n in range(prs):
            repo = f"repo{n % REPOS}"
            org.open_pr(repo, n + 1)
            numbers.append((repo, n + 1))
        print(f"built {prs} PRs in {REPOS} repositories under {scratch}")

        settings = load_settings()
        settings.temporal.address = env.client.service_client.config.target_host
        settings.temporal.task_queue = f"bench-{uuid.uuid4().hex[:6]}"
        settings.temporal.llm_task_queue = settings.temporal.task_queue + "-llm"
        settings.temporal.github_task_queue = settings.temporal.task_queue + "-github"
        port = free_port()
        receiver_env = child_environment(settings) | {
            "PRFLOW_WEBHOOK_SECRET": SECRET,
            "PRFLOW_GITHUB_API_URL": fake.api_url,
        }
        receiver = await asyncio.create_subprocess_exec(
            str(prflow_script()),
            "webhook",
            "--port",
            str(port),
            env=receiver_env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}/webhook"
        try:
            async with running_workers(env.client, settings), httpx.AsyncClient(timeout=30) as http:
                for _ in range(100):
                    try:
                        if (await http.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                            break
                    except httpx.HTTPError:
                        pass
                    await asyncio.sleep(0.1)
                opened = [pull_request_delivery(fake, org.org, r, n, "opened") for r, n in numbers]
                burst = opened + opened[:duplicates]  # redeliveries keep their delivery id
                started = time.perf_counter()
                await _send(http, url, burst)
                second: list[Delivery] = []
                for repo, number in numbers[-pushes:]:
                    before = org.head(repo, number)
                    org.push(repo, number)
                    second.append(
                        pull_request_delivery(
                            fake, org.org, repo, number, "synchronize", before=before
                        )
                    )
                await _send(http, url, second)
                done = await _until_all_current(env.client, org, numbers, limit=1800)
                elapsed = time.perf_counter() - started
        finally:
            receiver.terminate()
            await receiver.wait()
    sent = len(burst) + len(second)
    problems = _check(org, numbers, done)
    bare = await _bare_rate(env.client, sent)
    await env.shutdown()
    rate = len(done) / elapsed * 60
    superseded = sum(
        1 for s in done.values() for r in s.state.runs if r.outcome is RunOutcome.superseded
    )
    print(f"deliveries sent: {sent} ({duplicates} redelivered, {pushes} second pushes)")
    exact = len(numbers) - len({p.split(":")[0] for p in problems})
    print(f"PRs with exactly one completed run on their current head: {exact}/{len(numbers)}")
    print(f"runs superseded by a second push: {superseded}")
    for problem in problems[:10]:
        print(f"  PROBLEM {problem}")
    print(f"prflow queue: {rate:.1f} PRs per minute ({len(done)} PRs in {elapsed:.1f}s)")
    print(
        f"bare SDK: {bare:.1f} trivial workflows per minute ({sent} started with the plain client)"
    )
    print(f"ratio prflow PRs/min to bare workflows/min: {rate / bare:.4f}")


def _check(
    org: SimulatedOrg, numbers: list[tuple[str, int]], done: dict[tuple[str, int], QueueStatus]
) -> list[str]:
    problems: list[str] = []
    for repo, number in numbers:
        status = done.get((repo, number))
        if status is None:
            problems.append(f"{repo}#{number}: never reached its current head")
            continue
        completed = [r.head_sha for r in status.state.runs if r.outcome is RunOutcome.completed]
        current = org.head(repo, number)
        if completed.count(current) != 1:
            problems.append(
                f"{repo}#{number}: {completed.count(current)} completed runs on its head"
            )
        if len(completed) != len(set(completed)):
            problems.append(f"{repo}#{number}: a head completed twice")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=160)
    parser.add_argument("--pushes", type=int, default=20)
    parser.add_argument("--duplicates", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(_main(args.prs, args.pushes, args.duplicates))


if __name__ == "__main__":
    main()
