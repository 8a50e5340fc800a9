"""The impact workflow end to end in static mode, on the real dev server and a real repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow import search_attributes as sa
from prflow.agent.planning import phase_plan
from prflow.config import Settings, cached_settings
from prflow.impact.kind import IMPACT
from prflow.impact.models import ImpactReport, LlmStatus
from prflow.impact.run_models import LLM_PHASE, ImpactRequest
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import start_impact
from tests.support.sample_repos import EXPECTED_BREAKING

pytestmark = pytest.mark.temporal


def _request(settings: Settings, repo: Path) -> ImpactRequest:
    return ImpactRequest(
        repo=str(repo),
        base="base",
        head="feature",
        llm=phase_plan(settings, IMPACT, LLM_PHASE, enabled=False),
    )


async def test_static_run_finds_every_breaking_change_with_consumers(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, sample_repo: Path
) -> None:
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(
            temporal_client,
            temporal_settings,
            _request(temporal_settings, sample_repo),
            "impact-static-1",
        )
        result = await handle.result()
        described = await handle.describe()
        events = [event async for event in handle.fetch_history_events()]

    attributes = described.typed_search_attributes
    assert attributes.get(sa.KIND) == "impact"
    assert attributes.get(sa.REPO) == str(sample_repo)
    assert attributes.get(sa.RISK_SCORE) == result.score
    assert attributes.get(sa.RISK_LEVEL) == result.level.value
    assert attributes.get(sa.PHASE) == "report"

    db = cached_settings().resolved_database_url()
    report = ImpactReport.model_validate_json(get_text(db, result.report_key))
    found = {(b.file, b.symbol, b.kind.value) for b in report.breaking_changes}
    assert found >= EXPECTED_BREAKING
    by_symbol = {b.symbol: b for b in report.breaking_changes}
    assert "app/checkout.py" in by_symbol["total"].consumers
    assert "app/checkout.py" in by_symbol["Cart.clear"].consumers
    assert "web/src/view.tsx" in by_symbol["formatName"].consumers
    assert any(s.target.endswith("legacy_rate") for s in report.stale_docs)
    assert "app/report.py" in report.impact_graph.indirectly_affected
    assert {c.path for c in report.config_changes} == {".github/workflows/ci.yml"}
    assert report.llm.status == LlmStatus.skipped
    assert result.score == report.risk.score and result.level == report.risk.level
    assert report.risk.score >= 50  # high breaking + untested sources + CI change

    markdown = get_text(db, result.markdown_key)
    assert f"**Risk Score**: {report.risk.score}/100 ({report.risk.level.value})" in markdown
    sarif = json.loads(get_text(db, result.sarif_key))
    assert sarif["version"] == "2.1.0"
    assert result.comment_url is None

    # Resolving, listing the changes and the report are local activities (no task-queue
    # trip and no workflow task after each); the static analysis stays a full activity
    # that heartbeats. A small PR's run is then two workflow tasks, not five.
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    local = [
        json.loads(e.marker_recorded_event_attributes.details["data"].payloads[0].data)[
            "activity_type"
        ]
        for e in events
        if e.HasField("marker_recorded_event_attributes")
        and e.marker_recorded_event_attributes.marker_name == "core_local_activity"
    ]
    tasks = [e for e in events if e.HasField("workflow_task_completed_event_attributes")]
    assert scheduled == ["impact_static_analysis"]
    assert local == ["repo_resolve_range", "impact_changes", "impact_build_report"]
    assert len(tasks) == 2
