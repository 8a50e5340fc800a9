"""Search attributes: what the dev server is told, and registration on a running server."""

from __future__ import annotations

import uuid

import pytest
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeKey

from prflow.registry import KINDS
from prflow.search_attributes import COMMON_KEYS
from worker.search_attributes import ALL_KEYS, dev_server_flags, ensure_registered


def test_dev_server_flags_name_every_attribute_with_its_type() -> None:
    flags = dev_server_flags()
    assert flags[0::2] == ["--search-attribute"] * len(ALL_KEYS)
    assert sorted(flags[1::2]) == [
        "CostUSD=Double",
        "Kind=Keyword",
        "PR=Int",
        "ParentRun=Keyword",
        "Phase=Keyword",
        "Repo=Keyword",
        "RiskLevel=Keyword",
        "RiskScore=Int",
        "Role=Keyword",
    ]


def test_the_registered_attributes_are_the_common_ones_and_every_kinds_own() -> None:
    names = {key.name for key in ALL_KEYS}
    assert {key.name for key in COMMON_KEYS} <= names
    for kind in KINDS:
        assert {key.name for key in kind.search_attributes} <= names


@pytest.mark.temporal
async def test_registration_adds_only_missing_attributes_and_is_idempotent(
    temporal_client: Client,
) -> None:
    assert await ensure_registered(temporal_client, "default") == []

    extra = SearchAttributeKey.for_keyword(f"PrflowProbe{uuid.uuid4().hex[:6]}")
    assert await ensure_registered(temporal_client, "default", [*ALL_KEYS, extra]) == [extra.name]
    assert await ensure_registered(temporal_client, "default", [*ALL_KEYS, extra]) == []

    listed = await temporal_client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace="default")
    )
    assert {key.name for key in [*ALL_KEYS, extra]} <= set(listed.custom_attributes)
