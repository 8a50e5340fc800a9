"""A worker SIGKILLed while doc agents run: the run resumes, and a doc whose agent had
finished is not worked again (its turns are not resent, its edit is kept once)."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.docsync.report import DocsyncReport
from prflow.docsync.run_models import DocStatus
from prflow.store.blobs import get_text
from prflow.store.edit_ledger import edits_of_run
from tests.support.docsync_runs import (
    GUIDE_ROUTE,
    USAGE_ROUTE,
    build_docsync_repo,
    docsync_request,
    docsync_routes,
    start_docsync,
)
from tests.support.fixtures_temporal import WorkerProcessFactory
from tests.support.review_runs import wait_for_route
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal

RESULT_TIMEOUT = 240


async def test_a_killed_worker_resumes_without_redoing_finished_docs(
    prflow_home: Path,
    temporal_client: Client,
    temporal_settings: Settings,
    tmp_path: Path,
    scripted_anthropic: ScriptedAnthropic,
    start_worker_process: WorkerProcessFactory,
) -> None:
    repo = build_docsync_repo(tmp_path / "repo")
    gate = threading.Event()
    scripted_anthropic.route(docsync_routes(usage_held_by=gate))
    worker = await start_worker_process(temporal_settings)
    request = docsync_request(temporal_settings, repo.path, max_concurrency=1)
    request.llm.heartbeat_timeout_seconds = 8
    handle = await start_docsync(
        temporal_client, temporal_settings, request, "docsync-worker-crash"
    )
    # one doc at a time: guide.rst has finished when usage.md's first turn is in flight
    await asyncio.to_thread(wait_for_route, scripted_anthropic, USAGE_ROUTE)

    worker.kill()
    gate.set()
    await worker.restart()
    result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)

    served = Counter(r.turn for r in scripted_anthropic.requests_of(GUIDE_ROUTE))
    assert served == Counter({n: 1 for n in range(6)}), "a finished doc was worked again"
    held = scripted_anthropic.requests_of(USAGE_ROUTE)
    assert 2 <= len(held) <= 3, "the doc in flight resends its turn at most once per kill"
    outcomes = {o.path: o for o in result.outcomes}
    assert outcomes["docs/guide.rst"].status == DocStatus.edited
    assert outcomes["docs/usage.md"].status == DocStatus.edited
    db = cached_settings().resolved_database_url()
    report = DocsyncReport.model_validate_json(get_text(db, result.report_key))
    assert sorted(e.path for e in report.edits) == ["docs/guide.rst", "docs/usage.md"]
    assert len(edits_of_run(db, "docsync-worker-crash")) == 2
