"""An agent's whole state as data, so a loop can stop anywhere between turns and carry on.

:class:`AgentSpec` is fixed when the agent starts (what it is, which model,
prompt and tools by blob key). :class:`AgentState` is what changes turn by turn
(transcript, spend, elision point). Together they are the argument a child
agent workflow continues-as-new with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from prflow.agent.budget import PhaseBudget
from prflow.agent.economy import PromptEconomy
from prflow.agent.messages import PreparedPrompt
from prflow.agent.plan import PhasePlan
from prflow.llm.messages import MessageRef
from prflow.repo_models import ResolvedRange
from prflow.workspace.models import WorkspaceRef


class RepoToolBackend(BaseModel):
    """Tool calls go to the read-only repository tools at one commit range."""

    kind: Literal["repo"] = "repo"
    range: ResolvedRange
    task_queue: str | None = Field(default=None, description="None: the workflow's own queue")
    focus_paths: list[str] = Field(
        default_factory=list, description="Files the agent may read without limit"
    )
    max_reads_outside_focus: int | None = Field(
        default=None,
        description="How many other files read_file_at_ref may open (reference following); "
        "None: no limit",
    )


class WorkspaceToolBackend(BaseModel):
    """Tool calls read and edit the run's workspace (``prflow.workspace.tools``).

    ``workspace`` is where the agent starts; the current reference lives in
    :attr:`AgentState.workspace`, moved on by every edit that applies.
    """

    kind: Literal["workspace"] = "workspace"
    workspace: WorkspaceRef
    editable: list[str] = Field(
        default_factory=list, description="Globs/paths the agent may edit; empty: any"
    )
    task_queue: str | None = Field(default=None, description="None: the workflow's own queue")


ToolBackend = Annotated[RepoToolBackend | WorkspaceToolBackend, Field(discriminator="kind")]


class AgentSpec(BaseModel):
    """What one agent is; decided before its first turn and never changed."""

    name: str = Field(description="Unique within its run, e.g. 'impact_agent' or 'reviewer:auth'")
    workflow_kind: str
    phase: str = Field(description="Budget and ledger phase")
    plan: PhasePlan
    system_key: str
    system_chars: int
    tools_key: str | None = Field(default=None, description="Blob of the tool schemas (JSON)")
    tool_names: list[str] = Field(default_factory=list)
    tools_chars: int = 0
    terminal_tool: str | None = None
    initial_message_key: str
    initial_chars: int
    initial_transcript_key: str | None = Field(
        default=None,
        description="An earlier agent's conversation, grown by the initial message, that "
        "this agent continues (its prefix is read from the prompt cache)",
    )
    initial_transcript_len: int = 0
    tool_backend: ToolBackend | None = None
    economy: PromptEconomy = Field(default_factory=PromptEconomy)
    turns_per_run: int = Field(
        default=100, ge=1, description="A child agent continues-as-new after this many turns"
    )
    repo: str | None = None
    pr_number: int | None = None
    parent_workflow_id: str | None = Field(
        default=None, description="Where a child agent reports its progress"
    )
    tells_share: bool = Field(
        default=False,
        description="Each follow-up tells the agent the tokens left of its cap, and a turn "
        "that would leave no room for one more is its last: it must submit (forced)",
    )
    parent_tools: list[str] = Field(
        default_factory=list,
        description="Tools the parent workflow acts on: a call is signalled to it (a child "
        "agent's request, e.g. an investigation to start now) and the loop goes on",
    )


class AgentRequest(BaseModel):
    """A child agent's call of one of its ``parent_tools``, as the parent receives it."""

    agent: str
    tool: str
    input: dict[str, Any] = Field(default_factory=dict)


CHILD_AGENT_MARK = "/agent:"
"""A child agent's workflow id is its run's id, this mark, and the agent's name."""


def child_agent_id(parent_workflow_id: str, agent_name: str) -> str:
    return f"{parent_workflow_id}{CHILD_AGENT_MARK}{agent_name}"


def run_of(workflow_id: str) -> str:
    """The run a workflow id belongs to: itself, or the run that started the child agent."""
    return workflow_id.split(CHILD_AGENT_MARK, 1)[0]


def spec_from_prompt(prompt: PreparedPrompt, **fields: Any) -> AgentSpec:
    """An agent spec whose prompt, tools and first message are those stored in ``prompt``."""
    return AgentSpec(
        system_key=prompt.system_key,
        system_chars=prompt.system_chars,
        tools_key=prompt.tools_key,
        tools_chars=prompt.tools_chars,
        tool_names=prompt.tool_names,
        initial_message_key=prompt.message_key,
        initial_chars=prompt.message_chars,
        initial_transcript_key=prompt.transcript_key,
        initial_transcript_len=prompt.transcript_len,
        **fields,
    )


class AgentState(BaseModel):
    """Everything that changes as the agent works."""

    spec: AgentSpec
    budget: PhaseBudget
    started_at: datetime | None = None
    transcript_key: str | None = Field(
        default=None, description="Blob listing every message so far; None until the first turn"
    )
    transcript: list[MessageRef] = Field(
        default_factory=list, description="The messages while no transcript blob exists"
    )
    transcript_len: int = 1
    next_prompt_tokens: int = 0
    cached_prefix_tokens: int = Field(
        default=0, description="Tokens of the next prompt the previous request cached"
    )
    elide_before: int = 0
    runs: int = 1
    turns_this_run: int = 0
    last_turn: bool = Field(
        default=False, description="The next answer must call the terminal tool (share spent)"
    )
    reads_outside_focus: list[str] = Field(
        default_factory=list, description="Files opened outside the backend's focus so far"
    )
    workspace: WorkspaceRef | None = Field(
        default=None,
        description="The workspace after the agent's latest applied edit (workspace backend)",
    )

    @classmethod
    def start(cls, spec: AgentSpec, budget: PhaseBudget) -> AgentState:
        """The state before the first turn: the initial user message only."""
        backend = spec.tool_backend
        workspace = backend.workspace if isinstance(backend, WorkspaceToolBackend) else None
        if spec.initial_transcript_key is not None:  # continues an earlier conversation
            return cls(
                spec=spec,
                budget=budget,
                transcript_key=spec.initial_transcript_key,
                transcript_len=spec.initial_transcript_len,
                workspace=workspace,
            )
        return cls(
            spec=spec,
            budget=budget,
            transcript=[MessageRef(role="user", blob_key=spec.initial_message_key)],
            workspace=workspace,
        )
