"""``python -m bench.chaos.starts [--rounds N]``: every start path and failure converges.

Three scenarios on real parts (dev servers, in-process workers, the loopback
GitHub of the test suite, real ``prflow`` processes), each repeated ``N`` times:

- two deployments (two Temporal servers and their workers, sharing only GitHub)
  post a static review of one PR head, their claims released in step;
- a ``prflow impact`` served on its own queues (a ``prflow server`` running, no
  ``TEMPORAL_ADDRESS``) is SIGKILLed mid-run and the same command is run again;
- a set of hostile webhook deliveries reaches the receiver.

Prints one line per round, then, last, the counts: kills survived, duplicate posts,
turns paid twice (not exercised here: ``python -m bench.chaos`` kills workers mid
fan-out), stuck workflows and hostile inputs refused. Deterministic: no random
timing, every race is held at the same point.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from bench.impact.layout import DEFAULT_ROOT, fresh_dir
from prflow.config import cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.queue.delivery import queue_names
from tests.e2e.test_concurrent_runs import held_transport, start_impact, until_exists
from tests.queue.receiver import serving_receiver
from tests.queue.test_hostile_webhooks import HOSTILE, _headers, _set
from tests.support.cli_runs import embedded_environment, free_port
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN
from tests.support.fixtures_temporal import isolated_settings, prflow_script, run_worker
from tests.support.review_runs import review_request, start_review
from tests.support.sample_repos import build_sample_repo, git
from worker.devserver import temporal_binary
from worker.search_attributes import ALL_KEYS

OWNER, REPO = "octo-org", "shop"
RERUN_WITHIN_SECONDS = 60.0


def _say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


async def _server() -> WorkflowEnvironment:
    return await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(temporal_binary()),
        search_attributes=ALL_KEYS,
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
    )


async def duplicate_posts(root: Path, rounds: int) -> list[int]:
    """Reviews posted beyond one per head, per round, by two deployments racing in step."""
    os.environ["PRFLOW_DATABASE_URL"] = f"sqlite:///{root / 'prflow.db'}"
    os.environ["PRFLOW_DATA_DIR"] = str(root / "data")
    work = build_sample_repo(root / "work")
    bare = root / "shop.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    extra: list[int] = []
    with FakeGitHub() as fake:
        fake.add_user(FAKE_GITHUB_LOGIN, token=FAKE_GITHUB_TOKEN)
        os.environ["PRFLOW_GITHUB_API_URL"] = fake.api_url
        os.environ["GITHUB_TOKEN"] = FAKE_GITHUB_TOKEN
        cached_settings.cache_clear()
        first, second = await _server(), await _server()
        try:
            settings = [
                isolated_settings(env.client.service_client.config.target_host)
                for env in (first, second)
            ]
            async with (
                run_worker(first.client, settings[0]),
                run_worker(second.client, settings[1]),
            ):
                clients = (first.client, second.client)
                for number in range(1, rounds + 1):
                    extra.append(await _race(fake, clients, settings, work, bare, number))
                    _say(f"deployments race {number}: {extra[-1] + 1} review(s) posted")
        finally:
            await first.shutdown()
            await second.shutdown()
    return extra


async def _race(
    fake: FakeGitHub,
    clients: tuple[Client, Client],
    settings: list[Any],
    work: Path,
    bare: Path,
    number: int,
) -> int:
    fake.add_pull_request(
        OWNER, REPO, number, bare_repo_path=bare, base_sha=git(work, "rev-parse", "main"),
        head_sha=git(work, "rev-parse", "feature"), title=f"Round {number}",
    )  # fmt: skip
    pr = PullRequestRef(owner=OWNER, repo=REPO, number=number)
    claims = rf"/issues/{number}/comments$"
    in_step = fake.hold("POST", claims)
    handles = [
        await start_review(
            client,
            s,
            review_request(s, pull_request=pr, model=False, post=True),
            f"bench-race-{number}-{side}",
        )
        for side, (client, s) in enumerate(zip(clients, settings, strict=True))
    ]
    for _ in range(2400):
        if fake.parked("POST", claims) >= 2:
            break
        await asyncio.sleep(0.05)
    in_step.set()
    await asyncio.wait_for(asyncio.gather(*(h.result() for h in handles)), 300)
    return max(len(fake.reviews(OWNER, REPO, number)) - 1, 0)


async def killed_commands(root: Path, rounds: int) -> tuple[int, int]:
    """(reruns that finished within a minute, workflows left running) after SIGKILLed CLIs."""
    port = free_port()
    env = embedded_environment(root / "home", port, free_port())
    server = await asyncio.create_subprocess_exec(
        str(prflow_script()), "server", "--headless", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert server.stdout is not None
    while b"Ctrl-C" not in await server.stdout.readline():
        pass
    survived = 0
    try:
        for number in range(1, rounds + 1):
            transport = root / f"transport-{number}"
            origin = build_sample_repo(root / f"origin-{number}" / "shop")
            run_env = {**env, **held_transport(transport)}
            command = await start_impact(f"ssh://fakehost{origin}", run_env)
            await until_exists(transport / "fetching")
            command.process.kill()
            await command.process.wait()
            (transport / "hold").unlink()
            started = time.monotonic()
            again = await start_impact(f"ssh://fakehost{origin}", run_env)
            try:
                run = await asyncio.wait_for(again.finish(), RERUN_WITHIN_SECONDS)
                ok = run.code == 0 and time.monotonic() - started < RERUN_WITHIN_SECONDS
            except TimeoutError:
                again.process.kill()
                ok = False
            survived += ok
            _say(f"killed command {number}: rerun {'finished' if ok else 'STUCK'}")
        client = await Client.connect(f"127.0.0.1:{port}")
        stuck = [w.id async for w in client.list_workflows('ExecutionStatus = "Running"')]
    finally:
        server.send_signal(signal.SIGINT)
        await asyncio.wait_for(server.communicate(), 60)
    return survived, len(stuck)


async def hostile_inputs() -> tuple[int, int]:
    """(refused with a 4xx, sent) for the hostile deliveries of the test suite, plus more."""
    good: dict[str, Any] = {
        "action": "opened",
        "pull_request": {"number": 1, "state": "open", "head": {"sha": "a" * 40}},
        "repository": {"name": REPO, "owner": {"login": OWNER}},
    }
    bodies = [json.dumps(_set(good, path, value)).encode() for path, value in HOSTILE.values()]
    bodies.append(b"[" * 100_000 + b"]" * 100_000)

    async def unreachable() -> Client:
        raise RuntimeError("the bench's receiver has no Temporal: refusals never need it")

    refused = sent = 0
    async with (
        serving_receiver(unreachable, queue_names(cached_settings())) as url,
        httpx.AsyncClient() as http,
    ):
        requests = [(body, _headers(body)) for body in bodies]
        requests.append((b"<x/>", _headers(b"<x/>", "application/xml")))
        requests.append((bodies[0], _headers(bodies[0]) | {"X-GitHub-Delivery": "id; rm -rf /"}))
        for body, headers in requests:
            answer = await http.post(f"{url}/webhook", content=body, headers=headers)
            sent += 1
            refused += 400 <= answer.status_code < 500
    return refused, sent


async def main(rounds: int) -> None:
    root = fresh_dir(DEFAULT_ROOT / "chaos-starts")
    refused, sent = await hostile_inputs()
    _say(f"hostile deliveries: {refused}/{sent} refused with a 4xx")
    survived, stuck = await killed_commands(root / "kills", rounds)
    duplicates = await duplicate_posts(root / "race", rounds)
    print(
        f"kills survived {survived}/{rounds}  duplicate posts {sum(duplicates)} in {rounds} races  "
        f"turns paid twice n/a (python -m bench.chaos)  stuck workflows {stuck}  "
        f"hostile inputs refused {refused}/{sent}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args().rounds))
