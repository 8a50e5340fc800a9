"""Agents of a run that open with the same shared context write its cache prefix once.

Three child agents of a probe run (real dev server, real SDK against the
scripted Messages API) start together; their first messages open with the same
shared-context block and go on with each agent's own question. The scripted
model takes a second to answer, and, as on the real API, a prompt prefix
becomes readable only when the response that wrote it begins: agents that all
sent at once would each write the shared prefix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.outcome import StopReason
from prflow.config import Settings, cached_settings
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec, ResolvedRange
from tests.agent.probe_workflows import ProbeRequest, ProbeResult, ProbeWorkflow
from tests.support.agent_specs import probe_spec
from tests.support.fixtures_temporal import run_worker
from tests.support.scripted_anthropic import RecordedRequest, ScriptedAnthropic, Turn, bad_request

pytestmark = pytest.mark.temporal

NAMES = ("a", "b", "c")
SHARED = "Pull request #7: make the retry loop bounded.\n" + "\n".join(
    f"src/client/module_{n}.py: retries and backoff changed in function call_{n}" for n in range(80)
)
"""Shared context well over the 1,024 tokens the API needs to cache a prefix."""
LATENCY = 1.0


@pytest.fixture
def probe_range(prflow_home: Path, sample_repo: Path) -> ResolvedRange:
    return resolve_range(RepoSpec(location=str(sample_repo)), "base", "feature")


def _question(name: str) -> str:
    return f"[agent-{name}] Is the change in your file bounded?"


async def _run(client: Client, settings: Settings, rng: ResolvedRange, run_id: str) -> ProbeResult:
    db_url = cached_settings().resolved_database_url()
    specs = [
        probe_spec(
            db_url, settings, rng, name=name, first_message=_question(name), shared_context=SHARED
        )
        for name in NAMES
    ]
    async with run_worker(client, settings, workflows=[ProbeWorkflow]):
        return await client.execute_workflow(
            ProbeWorkflow.run,
            ProbeRequest(specs=specs, max_concurrency=len(specs)),
            id=run_id,
            task_queue=settings.temporal.task_queue,
        )


def _cache(requests: list[RecordedRequest]) -> list[tuple[int, int]]:
    """(cache write, cache read) tokens of each answered request, in arrival order."""
    return [
        (int(r.usage["cache_creation_input_tokens"]), int(r.usage["cache_read_input_tokens"]))
        for r in requests
        if r.usage is not None
    ]


async def test_agents_started_together_write_the_shared_prefix_once_and_read_it_after(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.route(
        {f"[agent-{name}]": [Turn(text="Bounded.", delay_seconds=LATENCY)] for name in NAMES}
    )
    result = await _run(temporal_client, temporal_settings, probe_range, "probe-prefix-once")

    assert [o.stop for o in result.outcomes] == [StopReason.final_answer] * 3
    cache = _cache(scripted_anthropic.requests)
    assert len(cache) == 3
    writer_write, writer_read = cache[0]
    assert writer_read == 0
    readers = cache[1:]
    assert all(read > 0 for _, read in readers), f"the others wrote the prefix again: {cache}"
    shared_prefix = readers[0][1]
    assert all(read == shared_prefix for _, read in readers)
    assert writer_write > shared_prefix, "the first wrote tools, system, shared context and more"
    assert all(write < writer_write - shared_prefix + 100 for write, _ in readers), (
        "a reader writes only its own part"
    )


async def test_a_failed_prefix_writer_hands_the_prefix_to_a_waiting_agent(
    temporal_client: Client,
    temporal_settings: Settings,
    probe_range: ResolvedRange,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    # One script for all: the first request to arrive (the writer) is refused for good.
    refused = bad_request("messages: the scripted writer is refused")
    scripted_anthropic.script([Turn(text="Bounded.", faults=[refused], delay_seconds=LATENCY)])
    result = await _run(
        temporal_client, temporal_settings, probe_range, "probe-prefix-writer-fails"
    )

    stops = sorted(o.stop for o in result.outcomes)
    assert stops == sorted([StopReason.llm_error, StopReason.final_answer, StopReason.final_answer])
    requests = scripted_anthropic.requests
    assert [r.status for r in requests] == [400, 200, 200]
    cache = _cache(requests)
    assert cache[0][1] == 0 and cache[1][1] > 0, (
        f"a waiter wrote the prefix, then one read it: {cache}"
    )
    handed_over = requests[1].received_at - requests[0].received_at
    assert handed_over < 10.0, f"the waiters sat out the failed writer ({handed_over:.1f} s)"
