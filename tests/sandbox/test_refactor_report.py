"""A refactor run's report says which sandbox ran its tests, and ``--sandbox`` reaches it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings
from prflow.sandbox.models import SandboxMode
from tests.support.fixtures_temporal import run_worker
from tests.support.refactor_repo import build_storage_repo
from tests.support.refactor_runs import artifact, refactor_request, start_refactor

pytestmark = pytest.mark.temporal


async def test_the_validation_report_names_the_sandbox_the_run_asked_for(
    prflow_home: Path, temporal_client: Client, temporal_settings: Settings, tmp_path: Path
) -> None:
    repo = build_storage_repo(tmp_path / "notes")
    request = refactor_request(
        temporal_settings,
        repo,
        model=False,
        allow_unsandboxed=False,
        sandbox=SandboxMode.network_only,
    )
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_refactor(temporal_client, temporal_settings, request, "sbx-report")
        result = await asyncio.wait_for(handle.result(), 240)

    assert result.tests_before == {"passed": 3, "failed": 0, "errors": 0, "skipped": 0}
    report = json.loads(artifact(result, "validation-report.json"))
    assert report["tests"]["sandbox"].startswith("bwrap (network only): network, environment")
