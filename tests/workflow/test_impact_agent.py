"""The agent phase of impact against the scripted model: every tool, evidence checks, ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client

from prflow import search_attributes as sa
from prflow.config import Settings, cached_settings
from prflow.impact.models import ImpactReport, LlmStatus
from prflow.store.blobs import get_text
from prflow.store.ledger import attempts_for_workflow
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import (
    GOOD_FINDING,
    agent_request,
    agent_script,
    start_impact,
    tool_results,
)
from tests.support.scripted_anthropic import ScriptedAnthropic, assert_prefix_stable

pytestmark = pytest.mark.temporal


async def test_agent_uses_every_tool_and_only_verified_findings_are_kept(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    sample_repo: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    scripted_anthropic.script(agent_script())
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(
            temporal_client,
            temporal_settings,
            agent_request(temporal_settings, sample_repo),
            "impact-agent-1",
        )
        result = await handle.result()
        described = await handle.describe()

    assert described.typed_search_attributes.get(sa.COST_USD) == pytest.approx(result.cost_usd)
    requests = scripted_anthropic.requests
    assert [r.turn for r in requests] == [0, 1, 2]
    assert_prefix_stable(requests[0], requests[1])
    assert_prefix_stable(requests[1], requests[2])
    first_results = tool_results(requests[1].body)
    assert any("shop/cart.py" in text and "modified" in text for text in first_results)
    assert any("-    def clear(self) -> None:" in text for text in first_results)
    second_results = tool_results(requests[2].body)
    assert len(second_results) == 4
    assert any("def total(cart: Cart, tax: float)" in text for text in second_results)
    assert any("app/checkout.py" in text for text in second_results)
    assert any("tests/test_cart.py" in text for text in second_results)

    assert result.llm.status == LlmStatus.completed
    assert [f.title for f in result.llm.findings] == [GOOD_FINDING["title"]]
    assert len(result.llm.rejected_findings) == 1
    assert "imaginary problem" in result.llm.rejected_findings[0]
    assert result.llm.iterations == 3
    assert result.cost_usd > 0

    db = cached_settings().resolved_database_url()
    markdown = get_text(db, result.markdown_key)
    assert "Pass tax in app/checkout.py" in markdown
    assert str(GOOD_FINDING["title"]) in markdown
    report = ImpactReport.model_validate_json(get_text(db, result.report_key))
    assert report.llm.recommendations == ["Pass tax in app/checkout.py", "Add a total() test"]

    rows = attempts_for_workflow(db, "impact-agent-1")
    assert [r.outcome for r in rows] == ["success"] * 3
    assert {r.phase for r in rows} == {"impact_agent"}
    assert sum(r.usd for r in rows) == pytest.approx(result.cost_usd, abs=1e-6)


async def test_no_api_key_on_the_worker_means_static_mode(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, sample_repo: Path
) -> None:
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(
            temporal_client,
            temporal_settings,
            agent_request(temporal_settings, sample_repo),
            "impact-agent-nokey",
        )
        result = await handle.result()
    assert result.llm.status == LlmStatus.skipped
    assert "ANTHROPIC_API_KEY" in result.llm.reason
