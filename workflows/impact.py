"""The ``impact`` workflow: resolve → changes → static analysis → agent → report → publish.

Orchestration only. Every step that touches git, the database, the model or
GitHub is an activity; the risk score is computed in code by the report
activity from the final structured findings.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.impact_analysis import (
        build_report,
        collect_changes,
        llm_context,
        static_analysis,
        verify_findings,
    )
    from activities.llm import llm_configured
    from prflow import search_attributes as sa
    from prflow.agent.state import AgentSpec, RepoToolBackend
    from prflow.github_models import CommentUpsertResult
    from prflow.impact.llm_phase import SUBMIT_TOOL, outcome_from_agent
    from prflow.impact.models import LlmFinding, LlmOutcome, LlmStatus
    from prflow.impact.render.comment import IMPACT_COMMENT_MARKER
    from prflow.impact.run_models import (
        LLM_PHASE,
        WORKFLOW_KIND,
        ChangeSet,
        ImpactRequest,
        ImpactResult,
        ReportRefs,
        StaticSummary,
    )
    from prflow.impact.stage_inputs import (
        BuildReportInput,
        LlmContextInput,
        StaticInput,
        VerifyInput,
    )
    from prflow.llm.token_estimate import tool_schema_chars
    from prflow.repo_models import ResolvedRange
    from prflow.run_progress import PhaseState
    from prflow.tools.registry import TOOL_SPECS
    from workflows.routing import github_queue, llm_queue
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit
    from workflows.targets import reads_local_checkout, resolve_target

PHASES = ["resolve", "changes", "static", "agent", "report", "publish"]
SELF_TAGGING = "impact-tags-itself"
"""Patch: the workflow sets Kind/Repo/PR itself (earlier runs were tagged by the CLI)."""
AGENT_AS_CHILD = "impact-agent-as-child"
"""Patch: the agent runs as a child agent workflow that continues-as-new, so a run of
hundreds of turns keeps every history small (earlier runs ran it inline)."""
LOCAL_STEPS = "impact-local-steps"
"""Patch: for a local checkout, resolving the range and listing the changes run as local
activities, and building the report does for every run (earlier runs scheduled them
through the task queue)."""


@workflow.defn(name=WORKFLOW_KIND)
class ImpactWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, PHASES)

    @workflow.run
    async def run(self, request: ImpactRequest) -> ImpactResult:
        kit = self.kit
        if workflow.patched(SELF_TAGGING):
            pr = request.pull_request
            kit.tag(
                repo=f"{pr.owner}/{pr.repo}" if pr else request.repo, pr=pr.number if pr else None
            )
        kit.start_deadline(request.deadline_seconds)
        local = workflow.patched(LOCAL_STEPS)
        on_disk = local and reads_local_checkout(request.pull_request, request.repo)
        rng = await self._resolve(request, local)
        changes: ChangeSet = await kit.step(
            "changes", collect_changes, rng, timeout=timedelta(minutes=10), local=on_disk
        )
        kit.set("changes", PhaseState.done, f"{changes.totals.files} files")
        static: StaticSummary = await kit.step(
            "static",
            static_analysis,
            StaticInput(range=rng, changes=changes),
            timeout=timedelta(minutes=30),
        )
        kit.set(
            "static",
            PhaseState.done,
            f"{static.breaking} breaking, {static.test_gaps} test gaps, "
            f"{static.stale_docs} stale docs",
        )
        llm = await self._agent_phase(request, rng, changes, static)
        report: ReportRefs = await kit.step(
            "report",
            build_report,
            BuildReportInput(
                range=rng,
                pull_request=request.pull_request,
                changes=changes,
                static_key=static.key,
                llm=llm,
                workflow_id=workflow.info().workflow_id,
            ),
            timeout=timedelta(minutes=5),
            local=local,
        )
        kit.set("report", PhaseState.done, f"risk {report.score}/100 ({report.level})")
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
            cost_usd=kit.status().total_usd,
            inline=report.inline,
        )

    async def _resolve(self, request: ImpactRequest, local: bool) -> ResolvedRange:
        rng, _ = await resolve_target(
            self.kit,
            pull_request=request.pull_request,
            repo=request.repo,
            base=request.base,
            head=request.head,
            github_task_queue=github_queue(request.github_task_queue),
            local=local,
        )
        return rng

    async def _agent_phase(
        self, request: ImpactRequest, rng: ResolvedRange, changes: ChangeSet, static: StaticSummary
    ) -> LlmOutcome:
        kit, plan = self.kit, request.llm
        if not plan.enabled:
            return self._skip_agent("no model configured (static mode)")
        configured: bool = await workflow.execute_activity(
            llm_configured,
            start_to_close_timeout=timedelta(seconds=30),
            task_queue=llm_queue(plan.task_queue),
            retry_policy=NETWORK_RETRY,
        )
        if not configured:
            return self._skip_agent("ANTHROPIC_API_KEY is not set on the worker (static mode)")
        context = await kit.step(
            "agent",
            llm_context,
            LlmContextInput(range=rng, changes=changes, static_key=static.key),
            timeout=timedelta(minutes=5),
        )
        tools = [*TOOL_SPECS, SUBMIT_TOOL]
        spec = AgentSpec(
            name=LLM_PHASE,
            workflow_kind=WORKFLOW_KIND,
            phase=LLM_PHASE,
            plan=plan,
            system_key=context.system_key,
            system_chars=context.system_chars,
            tools_key=context.tools_key,
            tool_names=[tool.name for tool in tools],
            tools_chars=context.tools_chars or tool_schema_chars(tools),
            terminal_tool=SUBMIT_TOOL.name,
            initial_message_key=context.message_key,
            initial_chars=context.message_chars,
            tool_backend=RepoToolBackend(range=rng),
            repo=rng.location,
            pr_number=request.pull_request.number if request.pull_request else None,
        )
        if workflow.patched(AGENT_AS_CHILD):
            outcome = await kit.run_child_agent(spec)
        else:
            outcome = await kit.run_inline_agent(spec)
        findings: list[LlmFinding] = []
        rejected: list[str] = []
        submitted = outcome.terminal_input or {}
        if submitted.get("findings"):
            verified = await kit.step(
                "agent",
                verify_findings,
                VerifyInput(range=rng, submitted=submitted),
                timeout=timedelta(minutes=5),
                summary="check the evidence of model findings",
            )
            findings, rejected = verified.kept, verified.rejected
        result = outcome_from_agent(
            outcome, plan.model, outcome.spent, findings=findings, rejected=rejected
        )
        state = PhaseState.done if result.status == LlmStatus.completed else PhaseState.failed
        kit.set(
            "agent", state, result.reason or f"{result.iterations} turns, ${result.cost_usd:.4f}"
        )
        return result

    async def _publish(
        self, request: ImpactRequest, report: ReportRefs
    ) -> CommentUpsertResult | None:
        return await self.kit.publish_sticky_comment(
            request.pull_request,
            asked=request.post_comment,
            marker=IMPACT_COMMENT_MARKER,
            body_key=report.comment_key,
            task_queue=github_queue(request.github_task_queue),
        )

    def _skip_agent(self, reason: str) -> LlmOutcome:
        self.kit.set("agent", PhaseState.skipped, reason)
        return LlmOutcome(status=LlmStatus.skipped, reason=reason)
