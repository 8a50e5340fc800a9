"""Agent specs for tests: a prompt stored in the test's blob store, a plan on its queues."""

from __future__ import annotations

from activities.agent_messages import prepare_prompt
from prflow.agent.budget import BudgetCaps
from prflow.agent.economy import PromptEconomy
from prflow.agent.messages import AgentPrompt
from prflow.agent.plan import PhasePlan
from prflow.agent.state import AgentSpec, RepoToolBackend, spec_from_prompt
from prflow.config import Settings
from prflow.repo_models import ResolvedRange
from prflow.tools.registry import TOOL_SPECS

MODEL = "claude-sonnet-5-5"


def probe_plan(
    settings: Settings,
    *,
    iterations: int = 50,
    usd: float = 5.0,
    raise_wait_seconds: float = 0,
    heartbeat_timeout_seconds: float = 30,
) -> PhasePlan:
    return PhasePlan(
        model=MODEL,
        price=settings.models.prices[MODEL],
        max_tokens=1024,
        caps=BudgetCaps(usd=usd, tokens=50_000_000, iterations=iterations, wall_clock_seconds=3600),
        task_queue=settings.temporal.llm_task_queue,
        raise_wait_seconds=raise_wait_seconds,
        heartbeat_timeout_seconds=heartbeat_timeout_seconds,
    )


def probe_spec(
    db_url: str,
    settings: Settings,
    rng: ResolvedRange,
    *,
    name: str = "probe",
    phase: str = "probe_phase",
    plan: PhasePlan | None = None,
    turns_per_run: int = 100,
    economy: PromptEconomy | None = None,
    first_message: str = "Look at the change with the tools, then answer.",
    shared_context: str = "",
) -> AgentSpec:
    """An agent with the six repository tools on ``rng``, prompt stored in ``db_url``."""
    prompt = prepare_prompt(
        db_url,
        AgentPrompt(
            system="You inspect pull requests with tools.",
            tools=list(TOOL_SPECS),
            first_message=first_message,
            shared_context=shared_context,
        ),
    )
    return spec_from_prompt(
        prompt,
        name=name,
        workflow_kind="probe",
        phase=phase,
        plan=plan or probe_plan(settings),
        tool_backend=RepoToolBackend(range=rng),
        economy=economy or PromptEconomy(),
        turns_per_run=turns_per_run,
    )
