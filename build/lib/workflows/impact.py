"""The ``impact`` workflow: resolve → changes → static analysis → agent → report → publish.

Orchestration only. Every step that touches git, the database, the model or
GitHub is an activity; the risk score is computed in code by the report
activity from the final structured findings.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.agent_messages import ToolResultPart
    from prflow.budget import BudgetBook, BudgetRaise, BudgetStatus
    from prflow.github_models import CommentUpsertInput, CommentUpsertResult, PullRequestInfo
    from prflow.impact.llm_phase import SUBMIT_TOOL, outcome_from_agent
    from prflow.impact.models import LlmFinding, LlmOutcome, LlmStatus
    from prflow.impact.run_models import (
        LLM_PHASE,
        WORKFLOW_KIND,
        ChangeSet,
        ImpactProgress,
        ImpactRequest,
        ImpactResult,
        LlmContext,
        PhaseProgress,
        PhaseState,
        ReportRefs,
        StaticSummary,
    )
    from prflow.impact.stage_inputs import (
        BuildReportInput,
        LlmContextInput,
        StaticInput,
        VerifyInput,
        VerifyResult,
    )
    from prflow.llm.messages import ToolCall
    from prflow.render.comment import IMPACT_COMMENT_MARKER
    from prflow.repo_models import (
        RepoSpec,
        ResolvedRange,
        ResolveRangeInput,
        ToolCallInput,
        ToolCallOutput,
    )
    from prflow.tools.registry import TOOL_SPECS
    from worker import search_attributes as sa
    from workflows.agent_loop import AgentConfig, AgentLoop, LlmCallPolicy

PHASES = ["resolve", "changes", "static", "agent", "report", "publish"]
GIT_RETRY = RetryPolicy(maximum_attempts=3, non_retryable_error_types=["UserError"])
NETWORK_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=6,
    non_retryable_error_types=["UserError"],
)


@workflow.defn(name="impact")
class ImpactWorkflow:
    def __init__(self) -> None:
        self._phases = [PhaseProgress(name=name) for name in PHASES]
        self._budget = BudgetBook()
        self._agent: AgentLoop | None = None

    @workflow.run
    async def run(self, request: ImpactRequest) -> ImpactResult:
        rng = await self._resolve(request)
        changes: ChangeSet = await self._step(
            "changes",
            "impact_changes",
            rng,
            ChangeSet,
            timedelta(minutes=10),
        )
        self._set("changes", PhaseState.done, f"{changes.totals.files} files")
        static: StaticSummary = await self._step(
            "static",
            "impact_static_analysis",
            StaticInput(range=rng, changes=changes),
            StaticSummary,
            timedelta(minutes=30),
        )
        self._set(
            "static",
            PhaseState.done,
            f"{static.breaking} breaking, {static.test_gaps} test gaps, "
            f"{static.stale_docs} stale docs",
        )
        llm = await self._agent_phase(request, rng, changes, static)
        report: ReportRefs = await self._step(
            "report",
            "impact_build_report",
            BuildReportInput(
                range=rng,
                pull_request=request.pull_request,
                changes=changes,
                static_key=static.key,
                llm=llm,
                workflow_id=workflow.info().workflow_id,
            ),
            ReportRefs,
            timedelta(minutes=5),
        )
        self._set("report", PhaseState.done, f"risk {report.score}/100 ({report.level})")
        workflow.upsert_search_attributes(
            [sa.RISK_SCORE.value_set(report.score), sa.RISK_LEVEL.value_set(report.level.value)]
        )
        comment = await self._publish(request, report)
        return ImpactResult(
            workflow_id=workflow.info().workflow_id,
            repo=rng.location,
            base_sha=rng.base_sha,
            head_sha=rng.head_sha,
            score=report.score,
            level=report.level,
            report_key=report.report_key,
            markdown_key=report.markdown_key,
            sarif_key=report.sarif_key,
            llm=llm,
            comment_url=comment.url if comment else None,
            comment_created=comment.created if comment else None,
            cost_usd=self._budget.status().total_usd,
        )

    @workflow.query
    def progress(self) -> ImpactProgress:
        return ImpactProgress(
            phases=self._phases,
            spend=self._budget.status(),
            waiting_for_budget=self._agent.waiting_reason if self._agent else None,
        )

    @workflow.query
    def spend(self) -> BudgetStatus:
        return self._budget.status()

    @workflow.update
    def raise_budget(self, change: BudgetRaise) -> BudgetStatus:
        self._budget.apply_raise(change)
        return self._budget.status()

    @raise_budget.validator
    def _validate_raise(self, change: BudgetRaise) -> None:
        if change.phase is not None and change.phase not in self._budget.phases:
            known = ", ".join(sorted(self._budget.phases)) or "none yet"
            raise ValueError(f"unknown phase {change.phase!r}; known phases: {known}")

    async def _resolve(self, request: ImpactRequest) -> ResolvedRange:
        self._set("resolve", PhaseState.running)
        location, base, head, pr_number = request.repo, request.base, request.head, None
        if request.pull_request is not None:
            info: PullRequestInfo = await workflow.execute_activity(
                "github_resolve_pr",
                request.pull_request,
                result_type=PullRequestInfo,
                task_queue=request.github_task_queue,
                start_to_close_timeout=timedelta(seconds=60),
                retry_policy=NETWORK_RETRY,
                summary=f"resolve {request.pull_request.slug}",
            )
            location = location or info.clone_url
            base, head, pr_number = info.base_sha, info.head_sha, info.ref.number
        rng: ResolvedRange = await workflow.execute_activity(
            "repo_resolve_range",
            ResolveRangeInput(
                spec=RepoSpec(location=location or ".", pr_number=pr_number),
                base=base or "HEAD~1",
                head=head or "HEAD",
            ),
            result_type=ResolvedRange,
            start_to_close_timeout=timedelta(minutes=20),
            retry_policy=GIT_RETRY,
            summary=f"resolve {base}..{head}",
        )
        self._set("resolve", PhaseState.done, f"{rng.base_sha[:10]}..{rng.head_sha[:10]}")
        return rng

    async def _agent_phase(
        self, request: ImpactRequest, rng: ResolvedRange, changes: ChangeSet, static: StaticSummary
    ) -> LlmOutcome:
        plan = request.llm
        if not plan.enabled:
            return self._skip_agent("no model configured (static mode)")
        configured: bool = await workflow.execute_activity(
            "llm_configured",
            start_to_close_timeout=timedelta(seconds=30),
            task_queue=plan.task_queue,
            retry_policy=GIT_RETRY,
            result_type=bool,
        )
        if not configured:
            return self._skip_agent("ANTHROPIC_API_KEY is not set on the worker (static mode)")
        context: LlmContext = await self._step(
            "agent",
            "impact_llm_context",
            LlmContextInput(range=rng, changes=changes, static_key=static.key),
            LlmContext,
            timedelta(minutes=5),
        )
        budget = self._budget.open(LLM_PHASE, plan.caps)
        tools = [*TOOL_SPECS, SUBMIT_TOOL]
        self._agent = AgentLoop(
            AgentConfig(
                workflow_kind=WORKFLOW_KIND,
                phase=LLM_PHASE,
                model=plan.model,
                price=plan.price,
                max_tokens=plan.max_tokens,
                system_key=context.system_key,
                system_chars=context.system_chars,
                initial_message_key=context.message_key,
                initial_chars=context.message_chars,
                tools=tools,
                terminal_tool=SUBMIT_TOOL.name,
                llm=LlmCallPolicy(
                    task_queue=plan.task_queue,
                    request_timeout_seconds=plan.request_timeout_seconds,
                    heartbeat_timeout_seconds=plan.heartbeat_timeout_seconds,
                    max_attempts=plan.max_attempts,
                ),
                raise_wait_seconds=plan.raise_wait_seconds,
                repo=rng.location,
                pr_number=request.pull_request.number if request.pull_request else None,
            ),
            budget,
            lambda call: self._run_repo_tool(rng, call),
            on_turn=self._after_turn,
        )
        outcome = await self._agent.run()
        findings: list[LlmFinding] = []
        rejected: list[str] = []
        submitted = outcome.terminal_input or {}
        if submitted.get("findings"):
            verified: VerifyResult = await workflow.execute_activity(
                "impact_verify_findings",
                VerifyInput(range=rng, submitted=submitted),
                result_type=VerifyResult,
                start_to_close_timeout=timedelta(minutes=5),
                retry_policy=GIT_RETRY,
                summary="check the evidence of model findings",
            )
            findings, rejected = verified.kept, verified.rejected
        result = outcome_from_agent(
            outcome, plan.model, budget.spent, findings=findings, rejected=rejected
        )
        state = PhaseState.done if result.status == LlmStatus.completed else PhaseState.failed
        self._set(
            "agent", state, result.reason or f"{result.iterations} turns, ${result.cost_usd:.4f}"
        )
        return result

    async def _run_repo_tool(self, rng: ResolvedRange, call: ToolCall) -> ToolResultPart:
        output: ToolCallOutput = await workflow.execute_activity(
            "repo_tool",
            ToolCallInput(range=rng, tool=call.name, arguments=call.input or {}),
            result_type=ToolCallOutput,
            start_to_close_timeout=timedelta(minutes=2),
            retry_policy=GIT_RETRY,
            summary=f"tool {call.name} {_brief(call.input)}",
        )
        return ToolResultPart(
            tool_use_id=call.id,
            content_key=output.content_key if output.ok else None,
            text=None if output.ok else output.error,
            is_error=not output.ok,
        )

    async def _after_turn(self) -> None:
        workflow.upsert_search_attributes([sa.COST_USD.value_set(self._budget.status().total_usd)])

    async def _publish(
        self, request: ImpactRequest, report: ReportRefs
    ) -> CommentUpsertResult | None:
        if not (request.post_comment and request.pull_request):
            self._set("publish", PhaseState.skipped, "not asked to post")
            return None
        self._set("publish", PhaseState.running)
        comment: CommentUpsertResult = await workflow.execute_activity(
            "github_upsert_comment",
            CommentUpsertInput(
                pr=request.pull_request, marker=IMPACT_COMMENT_MARKER, body_key=report.comment_key
            ),
            result_type=CommentUpsertResult,
            task_queue=request.github_task_queue,
            start_to_close_timeout=timedelta(seconds=60),
            retry_policy=NETWORK_RETRY,
            summary=f"upsert impact comment on {request.pull_request.slug}",
        )
        self._set("publish", PhaseState.done, comment.url)
        return comment

    async def _step(
        self, phase: str, activity: str, arg: Any, result_type: type[Any], limit: timedelta
    ) -> Any:
        self._set(phase, PhaseState.running)
        return await workflow.execute_activity(
            activity,
            arg,
            result_type=result_type,
            start_to_close_timeout=limit,
            retry_policy=GIT_RETRY,
            summary=f"{phase}: {activity}",
        )

    def _skip_agent(self, reason: str) -> LlmOutcome:
        self._set("agent", PhaseState.skipped, reason)
        return LlmOutcome(status=LlmStatus.skipped, reason=reason)

    def _set(self, phase: str, state: PhaseState, detail: str = "") -> None:
        for item in self._phases:
            if item.name == phase:
                item.state, item.detail = state, detail
        if state == PhaseState.running:
            workflow.upsert_search_attributes([sa.PHASE.value_set(phase)])


def _brief(arguments: dict[str, Any] | None) -> str:
    if not arguments:
        return ""
    text = ", ".join(f"{k}={v}" for k, v in sorted(arguments.items()))
    return text if len(text) <= 80 else text[:77] + "..."
