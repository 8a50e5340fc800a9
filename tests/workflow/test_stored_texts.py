"""Reading a finished run's stored texts starts no workflow: the CLI reads the store it shares
with its workers, or (no database access) asks the cluster's workers by standalone activity;
only a server without standalone activities gets the tagged ``blob_read`` workflow."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow import search_attributes as sa
from prflow.blob_chunks import PACKED_BYTES, BlobChunk, BlobChunkRequest
from prflow.cli.stored_texts import read_stored
from prflow.config import Settings, cached_settings
from prflow.store.blobs import put_text
from tests.support.fixtures_temporal import isolated_settings, run_worker, start_dev_server
from worker.embedded import Runtime
from workflows.blob_read import BlobReadWorkflow

pytestmark = pytest.mark.temporal

RUN_ID = "refactor:notes-1a2b3c"


def _runtime(client: Client, settings: Settings, *, shares_store: bool) -> Runtime:
    """A CLI's view: embedded (its workers share its store) or a laptop on a cluster."""
    return Runtime(client, "cluster:7233", None, shares_store, settings)


def _large_report() -> str:
    pick = random.Random(3).choice  # text that barely compresses: several packed slices
    report = "".join(pick("abcdefghijklmnopqrstuvwxyzünï0123456789 \n") for _ in range(900_000))
    assert len(report) > 2 * PACKED_BYTES
    return report


async def _workflows_on(client: Client, settings: Settings) -> list[str]:
    query = f'TaskQueue = "{settings.temporal.task_queue}"'
    return [execution.workflow_type async for execution in client.list_workflows(query)]


async def test_without_database_access_the_workers_read_it_and_no_workflow_starts(
    prflow_home: Path, temporal_client: Client, temporal_settings: Settings
) -> None:
    report = _large_report()
    key = put_text(cached_settings().resolved_database_url(), report)
    laptop = _runtime(temporal_client, temporal_settings, shares_store=False)
    async with run_worker(temporal_client, temporal_settings):
        texts = await read_stored(laptop, RUN_ID, [key, key])

    assert texts == {key: report}
    assert await _workflows_on(temporal_client, temporal_settings) == []


async def test_where_the_cli_shares_its_workers_store_it_reads_with_no_worker_at_all(
    prflow_home: Path, temporal_client: Client, temporal_settings: Settings
) -> None:
    key = put_text(cached_settings().resolved_database_url(), "# Docs left wrong\n")
    embedded = _runtime(temporal_client, temporal_settings, shares_store=True)

    assert await read_stored(embedded, RUN_ID, [key]) == {key: "# Docs left wrong\n"}
    assert await _workflows_on(temporal_client, temporal_settings) == []


@pytest.fixture
async def server_without_standalone_activities() -> AsyncIterator[Client]:
    env = await start_dev_server("--dynamic-config-value", "activity.enableStandalone=false")
    yield env.client
    await env.shutdown()


async def test_a_server_without_standalone_activities_gets_the_helper_workflow_tagged(
    prflow_home: Path, server_without_standalone_activities: Client
) -> None:
    client = server_without_standalone_activities
    settings = isolated_settings(client.service_client.config.target_host)
    key = put_text(cached_settings().resolved_database_url(), "# Impact report\n")
    async with run_worker(client, settings):
        texts = await read_stored(_runtime(client, settings, shares_store=False), RUN_ID, [key])

    assert texts == {key: "# Impact report\n"}
    query = f'TaskQueue = "{settings.temporal.task_queue}"'
    [helper] = [e async for e in client.list_workflows(query)]
    assert helper.workflow_type == "blob_read"
    assert helper.typed_search_attributes.get(sa.ROLE) == sa.ROLE_HELPER
    assert helper.typed_search_attributes.get(sa.PARENT_RUN) == RUN_ID
    assert [e async for e in client.list_workflows(f"{query} AND {sa.RUNS_ONLY}")] == []


async def test_the_blob_read_workflow_still_reads_for_older_clients(
    prflow_home: Path, temporal_client: Client, temporal_settings: Settings
) -> None:
    key = put_text(cached_settings().resolved_database_url(), "# Impact report\n\nRisk: 12\n")
    async with run_worker(temporal_client, temporal_settings):
        small: BlobChunk = await temporal_client.execute_workflow(
            BlobReadWorkflow.run,
            BlobChunkRequest(key=key),
            id="blob-read-replay",
            task_queue=temporal_settings.temporal.task_queue,
        )
    assert small.next_offset is None and small.text.startswith("# Impact report")
