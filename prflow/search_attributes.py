"""Custom search attributes that make prflow runs findable in the Temporal Web UI.

Workflows upsert these themselves as they start and progress, so a run started
by the CLI, a webhook or a schedule looks the same, and an operator can filter
``Kind = "review" AND RiskLevel = "critical"`` or sort by ``CostUSD``. The
server must know each attribute before a workflow may set it; the worker
registers :data:`ALL_KEYS` (see :mod:`worker.search_attributes`).
"""

from __future__ import annotations

from typing import Any

from temporalio.common import SearchAttributeKey

REPO = SearchAttributeKey.for_keyword("Repo")
PR = SearchAttributeKey.for_int("PR")
KIND = SearchAttributeKey.for_keyword("Kind")
PHASE = SearchAttributeKey.for_keyword("Phase")
RISK_SCORE = SearchAttributeKey.for_int("RiskScore")
RISK_LEVEL = SearchAttributeKey.for_keyword("RiskLevel")
COST_USD = SearchAttributeKey.for_float("CostUSD")

COMMON_KEYS: list[SearchAttributeKey[Any]] = [REPO, PR, KIND, PHASE, COST_USD]
"""What every kind sets: where, which kind, which phase, what it cost so far."""

ALL_KEYS: list[SearchAttributeKey[Any]] = [*COMMON_KEYS, RISK_SCORE, RISK_LEVEL]
