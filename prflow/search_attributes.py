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
PARENT_RUN = SearchAttributeKey.for_keyword("ParentRun")
ROLE = SearchAttributeKey.for_keyword("Role")

COMMON_KEYS: list[SearchAttributeKey[Any]] = [REPO, PR, KIND, PHASE, COST_USD]
"""What every kind sets: where, which kind, which phase, what it cost so far."""

CHILD_KEYS: list[SearchAttributeKey[Any]] = [PARENT_RUN, ROLE]
"""What every workflow a run starts for itself carries (a child agent, a refactor task): the
id of the run it works for and what it is (:data:`ROLE_AGENT`, :data:`ROLE_TASK`), so the Web
UI's saved view :data:`RUNS_ONLY` lists runs and hides their helpers."""

ROLE_AGENT = "agent"
ROLE_TASK = "task"
ROLE_HELPER = "helper"
"""A workflow the CLI starts to read a run's results (only on a server without standalone
activities, see :mod:`prflow.cli.stored_texts`)."""

RUNS_ONLY = f"{PARENT_RUN.name} IS NULL"
"""The list query an operator pins: every run, none of the workflows runs start for
themselves (runs a PR queue starts as its jobs are runs, and stay)."""

ALL_KEYS: list[SearchAttributeKey[Any]] = [*COMMON_KEYS, *CHILD_KEYS, RISK_SCORE, RISK_LEVEL]
