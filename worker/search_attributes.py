"""Registering prflow's search attributes on a Temporal server.

The keys are defined in :mod:`prflow.search_attributes`; this module makes a
server know them: every key the common set or any kind declares, through the
dev server's flags or the operator service on a cluster.
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

from prflow.registry import KINDS
from prflow.search_attributes import CHILD_KEYS, COMMON_KEYS


def declared_keys() -> list[SearchAttributeKey[Any]]:
    """The common keys, the keys children carry, and every kind's own, each once."""
    keys = {key.name: key for key in [*COMMON_KEYS, *CHILD_KEYS]}
    for kind in KINDS:
        keys.update({key.name: key for key in kind.search_attributes})
    return list(keys.values())


ALL_KEYS: list[SearchAttributeKey[Any]] = declared_keys()

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
