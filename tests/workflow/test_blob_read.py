"""A client without database access reads a stored report through the blob_read workflow."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.blob_chunks import PACKED_BYTES, BlobChunk, BlobChunkRequest
from prflow.cli.run_client import read_blob
from prflow.config import Settings, cached_settings
from prflow.store.blobs import put_text
from tests.support.fixtures_temporal import run_worker
from workflows.blob_read import BlobReadWorkflow

pytestmark = pytest.mark.temporal


async def test_a_report_larger_than_one_payload_arrives_whole(
    prflow_home: Path, temporal_client: Client, temporal_settings: Settings
) -> None:
    pick = random.Random(3).choice  # text that barely compresses: several packed slices
    report = "".join(pick("abcdefghijklmnopqrstuvwxyzünï0123456789 \n") for _ in range(900_000))
    assert len(report) > 2 * PACKED_BYTES
    db_url = cached_settings().resolved_database_url()
    key = put_text(db_url, report)
    small_key = put_text(db_url, "# Impact report\n\nRisk Score: 12/100 (low)\n")
    async with run_worker(temporal_client, temporal_settings):
        text = await read_blob(temporal_client, temporal_settings.temporal.task_queue, key)
        small: BlobChunk = await temporal_client.execute_workflow(
            BlobReadWorkflow.run,
            BlobChunkRequest(key=small_key),
            id="blob-read-replay",
            task_queue=temporal_settings.temporal.task_queue,
        )
    assert text == report
    assert small.next_offset is None and small.text.startswith("# Impact report")
