"""Fewer turns per agent: a layer agent's later pass continues its earlier conversation (the
earlier passes are read from the prompt cache, only the new findings are sent), the adversary
sees the code its findings cite, and anatomy the diff of the largest source change."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings
from tests.support.fixtures_temporal import run_worker
from tests.support.review_runs import (
    ADVERSARY,
    ANATOMY,
    CROSS_REF,
    FORMAT_NAME,
    TYPESCRIPT,
    dimension_key,
    review_request,
    start_review,
    submit,
    two_reviewers_script,
    wait_for_route,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, prompt_segments

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 180


def _last_text(body: dict[str, object]) -> str:
    last = body["messages"][-1]  # type: ignore[index]
    return json.dumps(last["content"])


async def test_a_second_layer_pass_continues_the_first_from_the_cache(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    gate = threading.Event()
    script = two_reviewers_script()
    held = submit("submit_findings", findings=[FORMAT_NAME])
    held.release = gate  # the TypeScript finding arrives after the first pass started
    script[dimension_key(TYPESCRIPT)] = [held]
    scripted_anthropic.route(script)
    request = review_request(temporal_settings, repo=sample_repo)
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_review(temporal_client, temporal_settings, request, "review-passes")
        await asyncio.to_thread(wait_for_route, scripted_anthropic, ADVERSARY)
        gate.set()
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    assert result.complete, result.cut_phases
    for route in (ADVERSARY, CROSS_REF):
        first, second = scripted_anthropic.requests_of(route)
        assert (first.turn, second.turn) == (0, 1), "pass 2 is the next turn of pass 1"
        earlier = prompt_segments(first.body)
        assert prompt_segments(second.body)[: len(earlier)] == earlier, "pass 1 sent as is"
        usage, before = second.usage, first.usage
        assert usage is not None and before is not None
        sent_before = before["input_tokens"] + before["cache_creation_input_tokens"]
        sent_before += before["cache_read_input_tokens"]
        assert usage["cache_read_input_tokens"] >= sent_before, "pass 1 read from the cache"
        news = _last_text(second.body)
        assert "New findings since your last submission (1)" in news
        assert "formatName() requires a new argument" in news
        assert "total() lost its tax default" not in news, "an earlier finding is not resent"

    opening = json.dumps(scripted_anthropic.requests_of(ADVERSARY)[0].body["messages"][0])
    assert "Code at head:" in opening, "the adversary sees the code a finding cites"
    assert " 9| def total(cart: Cart, tax: float) -> float:" in opening
    cross_ref = json.dumps(scripted_anthropic.requests_of(CROSS_REF)[0].body["messages"][0])
    assert "Code at head:" not in cross_ref

    anatomy = json.dumps(scripted_anthropic.requests_of(ANATOMY)[0].body["messages"][0])
    assert "Diff of the largest source change, shop/pricing.py" in anatomy
    assert "+def discount(amount: float, percent: float) -> int:" in anatomy
