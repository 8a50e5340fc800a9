"""Custom search attributes that make prflow runs findable in the Temporal Web UI.

Workflows upsert these as they progress, so an operator can filter
``Repo = "acme/api" AND RiskLevel = "critical"`` or sort by ``CostUSD``. The
server must know each attribute before a workflow may set it, so every way
prflow reaches a server (dev server flags, :func:`ensure_registered`) registers
the same :data:`ALL_KEYS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.common import SearchAttributeKey

REPO = SearchAttributeKey.for_keyword("Repo")
PR = SearchAttributeKey.for_int("PR")
KIND = SearchAttributeKey.for_keyword("Kind")
PHASE = SearchAttributeKey.for_keyword("Phase")
RISK_SCORE = SearchAttributeKey.for_int("RiskScore")
RISK_LEVEL = SearchAttributeKey.for_keyword("RiskLevel")
COST_USD = SearchAttributeKey.for_float("CostUSD")

ALL_KEYS: list[SearchAttributeKey[Any]] = [
    REPO,
    PR,
    KIND,
    PHASE,
    RISK_SCORE,
    RISK_LEVEL,
    COST_USD,
]

_DEV_SERVER_TYPE_NAMES = {
    IndexedValueType.INDEXED_VALUE_TYPE_TEXT: "Text",
    IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD: "Keyword",
    IndexedValueType.INDEXED_VALUE_TYPE_INT: "Int",
    IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE: "Double",
    IndexedValueType.INDEXED_VALUE_TYPE_BOOL: "Bool",
    IndexedValueType.INDEXED_VALUE_TYPE_DATETIME: "Datetime",
    IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST: "KeywordList",
}


def dev_server_flags(keys: Sequence[SearchAttributeKey[Any]] = ALL_KEYS) -> list[str]:
    """``--search-attribute Name=Type`` pairs for ``temporal server start-dev``."""
    flags: list[str] = []
    for key in keys:
        type_name = _DEV_SERVER_TYPE_NAMES[IndexedValueType.ValueType(key.indexed_value_type)]
        flags += ["--search-attribute", f"{key.name}={type_name}"]
    return flags


async def ensure_registered(
    client: Client,
    namespace: str,
    keys: Sequence[SearchAttributeKey[Any]] = ALL_KEYS,
) -> list[str]:
    """Add whichever of ``keys`` the namespace lacks; returns the names added.

    Safe to call on every start: attributes already present are left alone,
    so a server that an older prflow (or an operator) prepared is fine.
    """
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=namespace)
    )
    known = set(listed.custom_attributes) | set(listed.system_attributes)
    missing = {
        key.name: IndexedValueType.ValueType(key.indexed_value_type)
        for key in keys
        if key.name not in known
    }
    if missing:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=namespace, search_attributes=missing)
        )
    return sorted(missing)
