"""Shared pieces of review-workflow tests: requests, and a scripted conversation per agent.

Each agent of a review is routed by a phrase of its own prompt (see
:meth:`ScriptedAnthropic.route`): the intake, its escalation, the anatomy
reader, the planner, each reviewer (by its dimension's name), investigations,
the adversary, the cross-reference resolver and the coverage gate. Findings
are written against the sample repository's real lines, so their evidence
checks out, and the fingerprints the layer agents cite are computed the way
prflow computes them.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle

from prflow.agent.planning import phase_plans
from prflow.config import Settings
from prflow.impact.evidence import normalise_whitespace
from prflow.pr_identifier import PullRequestRef
from prflow.review.fingerprints import finding_fingerprint
from prflow.review.kind import REVIEW
from prflow.review.models import FindingCategory, ReviewDepth
from prflow.review.run_models import MODEL_PHASES, ReviewRequest, ReviewResult
from tests.support.scripted_anthropic import ScriptedAnthropic, ToolUse, Turn
from workflows.review import ReviewWorkflow
from workflows.review_fanout import MAX_LAYER_PASSES

INTAKE = "You triage pull requests"
ESCALATION = "whose metadata was not enough"
ANATOMY = "You explain what a pull request does"
PLANNER = "You plan the review of one pull request"
INVESTIGATION = "needs this investigated"
ADVERSARY = "You are the sceptic"
CROSS_REF = "You look for interactions"
COVERAGE = "You check whether a code review covered"
CART = "Cart API compatibility"
TYPESCRIPT = "TypeScript API"
PRICING = "Pricing rounding"


def dimension_key(name: str) -> str:
    return f"# Your review dimension: {name}"


def submit(tool: str, **payload: Any) -> Turn:
    return Turn(tool_uses=[ToolUse(tool, payload)])


def every_pass(*turns: Turn) -> list[Turn]:
    """A layer agent's turns for each of its passes: a later pass continues the same
    conversation, so its turns follow the earlier pass's (served by turn index)."""
    return [*turns] * MAX_LAYER_PASSES


def reading(*calls: tuple[str, dict[str, Any]]) -> Turn:
    return Turn(tool_uses=[ToolUse(name, args) for name, args in calls])


def finding(
    file: str,
    line: int,
    evidence: str,
    title: str,
    *,
    severity: str = "important",
    category: str = "correctness",
    confidence: float = 0.8,
    end: int | None = None,
    suggestion: str | None = None,
    ref: str = "head",
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "file": file,
        "line_start": line,
        "line_end": end or line,
        "ref": ref,
        "severity": severity,
        "category": category,
        "title": title,
        "body": f"{title}. Explained at length for the author.",
        "evidence": evidence,
        "confidence": confidence,
    }
    if suggestion is not None:
        item["suggestion"] = suggestion
    return item


def fingerprint_of(repo: Path, ref: str, item: dict[str, Any]) -> str:
    """The fingerprint prflow gives ``item`` once its evidence checked out at ``ref``."""
    text = subprocess.run(
        ["git", "-C", str(repo), "show", f"{ref}:{item['file']}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    anchor = normalise_whitespace(text.splitlines()[item["line_end"] - 1])
    return finding_fingerprint(
        item["file"], FindingCategory(item["category"]), anchor, item["title"]
    )


TOTAL_NEEDS_TAX = finding(
    "shop/cart.py",
    9,
    "def total(cart: Cart, tax: float) -> float:",
    "total() lost its tax default",
    suggestion="def total(cart: Cart, tax: float = 0.0) -> float:",
)
CHECKOUT_CLEARS = finding(
    "app/checkout.py",
    6,
    "cart.clear()",
    "checkout() still calls the removed Cart.clear",
    severity="critical",
    confidence=0.9,
)
INVENTED = finding("shop/cart.py", 2, "this text is nowhere", "an invented problem")
FORMAT_NAME = finding(
    "web/src/api.ts",
    7,
    "export function formatName(user: User, upper: boolean): string {",
    "formatName() requires a new argument",
    category="compatibility",
)
DISCOUNT_INT = finding(
    "shop/pricing.py",
    1,
    "def discount(amount: float, percent: float) -> int:",
    "discount() now truncates to int",
)
MISSED_TRAP = finding(
    "web/src/api.ts",
    4,
    "return Promise.resolve({ id, name: 'x' });",
    "loadUser answers a fixed name for every id",
)
HOPS = ["app/report.py", "README.md", "docs/pricing.md", "tests/test_cart.py"]


def review_script(repo: Path) -> dict[str, list[Turn]]:
    """A scripted review of the sample PR: every phase, with tools, investigations, a
    reference-following limit hit, streaming verdicts, a compound and a gap reviewer."""
    total_id = fingerprint_of(repo, "feature", TOTAL_NEEDS_TAX)
    format_id = fingerprint_of(repo, "feature", FORMAT_NAME)
    return {
        INTAKE: [submit("submit_intake", pr_type="feature", complexity="standard",
                        areas_touched=["shop"], risk_signals=[], confident=False)],
        ESCALATION: [
            reading(("list_changed_files", {})),
            submit("submit_intake", pr_type="refactor", complexity="standard",
                   areas_touched=["shop", "web"], risk_signals=["public API changes"],
                   confident=True),
        ],
        ANATOMY: [
            reading(("git_diff", {"file": "shop/cart.py"})),
            submit("submit_anatomy", narrative="Reshapes the shop and web APIs.",
                   risk_surfaces=["public API"], unrelated_changes=[], intent_gaps=[],
                   context_notes="Callers in app/ use the old API."),
        ],
        PLANNER: [
            submit(
                "submit_review_plan",
                dimensions=[
                    {"name": CART, "prompt": "Check every caller of the cart API.",
                     "target_files": ["shop/cart.py", "shop/__init__.py"],
                     "context_files": ["app/checkout.py"], "priority": 1},
                    {"name": TYPESCRIPT, "prompt": "Check the TypeScript exports.",
                     "target_files": ["web/src/api.ts", "web/src/index.ts", "no/such.ts"],
                     "priority": 2},
                ],
                cross_ref_hints=["cart total and TS formatting are both public API"],
            )
        ],
        INVESTIGATION: [submit("submit_findings", findings=[DISCOUNT_INT])],
        dimension_key(CART): [
            reading(("read_file_at_ref", {"path": "shop/cart.py"}),
                    ("read_file_at_ref", {"path": "app/checkout.py"})),
            reading(*[("read_file_at_ref", {"path": path}) for path in HOPS]),
            submit("submit_findings", summary="Callers break.",
                   findings=[TOTAL_NEEDS_TAX, CHECKOUT_CLEARS, INVENTED],
                   investigations=[{"question": "Does pricing still round the same way?",
                                    "files": ["shop/pricing.py"]}]),
        ],
        dimension_key(TYPESCRIPT): [submit("submit_findings", findings=[FORMAT_NAME])],
        ADVERSARY: every_pass(
            submit("submit_challenges",
                   verdicts=[{"id": total_id, "verdict": "confirmed", "reason": "one arg"},
                             {"id": format_id, "verdict": "challenged", "reason": "internal"}],
                   missed=[MISSED_TRAP]),
        ),
        CROSS_REF: every_pass(
            submit("submit_interactions",
                   compounds=[{"ids": [total_id, format_id], **finding(
                       "shop/cart.py", 10, "return sum(cart.items) * (1 + tax)",
                       "Both public APIs change shape in one release", confidence=0.7)}],
                   deep_dives=[{"question": "Do shipping costs still add up?",
                                "files": ["shop/pricing.py"]}]),
        ),
        COVERAGE: [
            submit("submit_coverage", complete=False,
                   gaps=[{"name": PRICING, "prompt": "Check pricing arithmetic.",
                          "target_files": ["shop/pricing.py"]}]),
        ],
        dimension_key(PRICING): [submit("submit_findings", findings=[])],
    }  # fmt: skip


def two_reviewers_script(held_by: threading.Event | None = None) -> dict[str, list[Turn]]:
    """A short review: two reviewers (cart, TypeScript), nothing escalated or asked for; the
    TypeScript reviewer's answer waits for ``held_by`` when given."""
    held = submit("submit_findings", findings=[])
    held.release = held_by
    return {
        INTAKE: [submit("submit_intake", pr_type="refactor", complexity="standard",
                        areas_touched=[], risk_signals=[], confident=True)],
        ANATOMY: [submit("submit_anatomy", narrative="API changes.", risk_surfaces=[],
                         unrelated_changes=[], intent_gaps=[])],
        PLANNER: [submit("submit_review_plan", cross_ref_hints=[], dimensions=[
            {"name": CART, "prompt": "Check the cart.", "target_files": ["shop/cart.py"],
             "priority": 1},
            {"name": TYPESCRIPT, "prompt": "Check the TS.", "target_files": ["web/src/api.ts"],
             "priority": 2},
        ])],
        dimension_key(CART): [
            reading(("read_file_at_ref", {"path": "shop/cart.py"})),
            submit("submit_findings", findings=[TOTAL_NEEDS_TAX]),
        ],
        dimension_key(TYPESCRIPT): [held],
        ADVERSARY: every_pass(submit("submit_challenges", verdicts=[], missed=[])),
        CROSS_REF: every_pass(submit("submit_interactions", compounds=[], deep_dives=[])),
        COVERAGE: [submit("submit_coverage", complete=True, gaps=[])],
    }  # fmt: skip


def review_request(
    settings: Settings,
    *,
    repo: Path | None = None,
    pull_request: PullRequestRef | None = None,
    model: bool = True,
    post: bool = False,
    depth: ReviewDepth = ReviewDepth.quick,
    budget_usd: float | None = None,
) -> ReviewRequest:
    return ReviewRequest(
        pull_request=pull_request,
        repo=str(repo) if repo else None,
        base="base" if repo and not pull_request else None,
        head="feature" if repo and not pull_request else None,
        post=post,
        depth=depth,
        plans=phase_plans(settings, REVIEW, MODEL_PHASES, enabled=model, budget_usd=budget_usd),
        max_concurrency=2,
    )


async def start_review(
    client: Client, settings: Settings, request: ReviewRequest, workflow_id: str
) -> WorkflowHandle[ReviewWorkflow, ReviewResult]:
    """Start a review on ``settings``' main queue, as any client would."""
    return await client.start_workflow(
        ReviewWorkflow.run, request, id=workflow_id, task_queue=settings.temporal.task_queue
    )


def wait_for_route(server: ScriptedAnthropic, route: str, timeout: float = 90) -> None:
    """Block until a request of ``route`` arrives (call through ``asyncio.to_thread``)."""
    deadline = time.monotonic() + timeout
    while not server.requests_of(route):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {route!r} request arrived within {timeout:.0f}s")
        time.sleep(0.05)
