"""Shared pieces of impact-workflow tests: a scripted agent conversation and requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle

from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE, ImpactRequest, ImpactResult
from tests.support.scripted_anthropic import ToolUse, Turn
from workflows.impact import ImpactWorkflow

GOOD_FINDING = {
    "title": "total() now needs tax: checkout passes none",
    "category": "breaking",
    "severity": "high",
    "file": "shop/cart.py",
    "line": 8,
    "ref": "head",
    "evidence": "def total(cart: Cart, tax: float) -> float:",
    "explanation": "app/checkout.py calls total(cart) and will raise TypeError.",
}
INVENTED_FINDING = {
    "title": "imaginary problem",
    "category": "risk",
    "severity": "medium",
    "file": "shop/cart.py",
    "line": 3,
    "ref": "head",
    "evidence": "this text is not in the file",
    "explanation": "made up",
}


def agent_script(submit: dict[str, Any] | None = None) -> list[Turn]:
    """Three turns that use all six tools, then submit findings."""
    return [
        Turn(
            text="Looking at the change.",
            tool_uses=[
                ToolUse("list_changed_files", {}),
                ToolUse("git_diff", {"file": "shop/cart.py"}),
            ],
        ),
        Turn(
            tool_uses=[
                ToolUse("read_file_at_ref", {"path": "shop/cart.py", "ref": "head"}),
                ToolUse("search_code", {"pattern": r"total\(", "glob": "*.py"}),
                ToolUse("find_importers", {"path": "shop/cart.py"}),
                ToolUse("list_test_files", {"path": "shop/cart.py"}),
            ],
        ),
        Turn(
            tool_uses=[
                ToolUse(
                    "submit_impact_findings",
                    submit
                    or {
                        "summary": "The cart API lost clear() and total() needs tax.",
                        "findings": [GOOD_FINDING, INVENTED_FINDING],
                        "recommendations": ["Pass tax in app/checkout.py", "Add a total() test"],
                    },
                )
            ]
        ),
    ]


def agent_request(settings: Settings, repo: Path | str, **plan: Any) -> ImpactRequest:
    return ImpactRequest(
        repo=str(repo),
        base="base",
        head="feature",
        llm=phase_plan(settings, IMPACT, LLM_PHASE, **plan),
    )


def tool_results(body: dict[str, Any]) -> list[str]:
    """Text of the tool_result blocks in the last user message of a request."""
    last = body["messages"][-1]
    return [
        str(block["content"]) for block in last["content"] if block.get("type") == "tool_result"
    ]


async def start_impact(
    client: Client, settings: Settings, request: ImpactRequest, workflow_id: str
) -> WorkflowHandle[ImpactWorkflow, ImpactResult]:
    """Start an impact run on ``settings``' main queue, as any client (CLI, webhook) would."""
    return await client.start_workflow(
        ImpactWorkflow.run, request, id=workflow_id, task_queue=settings.temporal.task_queue
    )
