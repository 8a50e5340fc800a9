"""prflow's own counters, exported with the worker runtime's Prometheus metrics (one port).

Temporal's core runtime already serves its worker metrics (task latencies,
slots, polls) on ``--metrics-port``. The interceptor here adds what an
operator of prflow asks next, on the same meter so the same endpoint serves it:

- ``prflow_workflow_runs``: runs ending, by kind and outcome (completed,
  failed, cancelled, continued_as_new);
- ``prflow_llm_cost_microusd`` and ``prflow_llm_tokens``: model spend by kind,
  phase and model (tokens also by input/output/cache_write/cache_read);
- ``prflow_findings``: findings of static analysis by kind and category.

Workflow counters use the workflow's replay-safe meter, so a replayed history
counts nothing twice.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from temporalio import activity, workflow
from temporalio.exceptions import CancelledError, FailureError
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

RUNS = "prflow_workflow_runs"
LLM_COST = "prflow_llm_cost_microusd"
LLM_TOKENS = "prflow_llm_tokens"
FINDINGS = "prflow_findings"
FINDING_FIELDS = ("breaking", "test_gaps", "stale_docs")
"""Counts a static-analysis summary carries (impact's ``StaticSummary``)."""


class PrflowMetrics(Interceptor):
    """Counts runs, model spend and findings on the worker runtime's metric meter."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _ActivityCounter(next)

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _RunCounter


class _ActivityCounter(ActivityInboundInterceptor):
    def execute_activity(self, input: ExecuteActivityInput) -> Any:
        # Sync activities run this in their thread and expect a value, async ones a coroutine.
        result = self.next.execute_activity(input)
        if inspect.isawaitable(result):
            return _counted(result, input)
        _count(result, input)
        return result


async def _counted(pending: Any, input: ExecuteActivityInput) -> Any:
    result = await pending
    _count(result, input)
    return result


def _count(result: Any, input: ExecuteActivityInput) -> None:
    meter = activity.metric_meter()
    if activity.info().activity_type == "llm_call" and input.args:
        call = input.args[0]
        labels = {"kind": call.workflow_kind, "phase": call.phase, "model": result.model}
        meter.create_counter(LLM_COST, "Model spend in millionths of a USD").add(
            round(result.usd * 1_000_000), labels
        )
        tokens = meter.create_counter(LLM_TOKENS, "Model tokens by direction")
        usage = result.usage
        for direction in ("input", "output", "cache_write", "cache_read"):
            amount = int(getattr(usage, f"{direction}_tokens", 0) or 0)
            if amount:
                tokens.add(amount, {**labels, "direction": direction})
    elif all(hasattr(result, name) for name in FINDING_FIELDS):
        kind = activity.info().workflow_type or "unknown"
        findings = meter.create_counter(FINDINGS, "Findings of static analysis by category")
        for name in FINDING_FIELDS:
            findings.add(int(getattr(result, name)), {"kind": kind, "category": name})


class _RunCounter(WorkflowInboundInterceptor):
    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        try:
            result = await super().execute_workflow(input)
        except workflow.ContinueAsNewError:
            _count_run("continued_as_new")
            raise
        except (CancelledError, asyncio.CancelledError):
            _count_run("cancelled")
            raise
        except FailureError:
            _count_run("failed")
            raise
        _count_run("completed")
        return result


def _count_run(outcome: str) -> None:
    kind = workflow.info().workflow_type
    counter = workflow.metric_meter().create_counter(RUNS, "Workflow runs ended, by outcome")
    counter.add(1, {"kind": kind, "outcome": outcome})
