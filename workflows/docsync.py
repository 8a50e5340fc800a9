"""The ``docsync`` workflow: resolve → changes → static → find → agents → report → publish.

Orchestration only. The affected docs are found in code from impact's static
findings; one child agent per doc (must update first, then review) proposes
edits through the exact-unique edit activity; the report step stores every
edit's patch and reason. With no model the run still finds and buckets the
docs and says the edits were skipped.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.docsync import build_report, find_docs
    from activities.github import upsert_pr_comment
    from activities.impact_analysis import collect_changes, static_analysis
    from activities.llm import llm_configured
    from prflow.docsync.run_models import (
        DOCSYNC_COMMENT_MARKER,
        WORKFLOW_KIND,
        DocOutcome,
        DocsyncRequest,
        DocsyncResult,
        FindInput,
        FindSummary,
        ReportInput,
        ReportRefs,
    )
    from prflow.github_models import CommentUpsertInput, CommentUpsertResult
    from prflow.impact.run_models import ChangeSet, StaticSummary
    from prflow.impact.stage_inputs import StaticInput
    from prflow.repo_models import ResolvedRange
    from prflow.run_progress import PhaseState
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit
    from workflows.targets import resolve_target

PHASES = ["resolve", "changes", "static", "find", "agents", "report", "publish"]


@workflow.defn(name=WORKFLOW_KIND)
class DocsyncWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, PHASES)

    @workflow.run
    async def run(self, request: DocsyncRequest) -> DocsyncResult:
        kit = self.kit
        pr = request.pull_request
        kit.tag(repo=f"{pr.owner}/{pr.repo}" if pr else request.repo, pr=pr.number if pr else None)
        rng, _ = await resolve_target(
            kit,
            pull_request=request.pull_request,
            repo=request.repo,
            base=request.base,
            head=request.head,
            github_task_queue=request.github_task_queue,
        )
        changes: ChangeSet = await kit.step(
            "changes", collect_changes, rng, timeout=timedelta(minutes=10)
        )
        kit.set("changes", PhaseState.done, f"{changes.totals.files} files")
        static: StaticSummary = await kit.step(
            "static",
            static_analysis,
            StaticInput(range=rng, changes=changes),
            timeout=timedelta(minutes=30),
        )
        kit.set("static", PhaseState.done, f"{static.breaking} API changes")
        found: FindSummary = await kit.step(
            "find",
            find_docs,
            FindInput(
                range=rng,
                changes_key=changes.files_key,
                static_key=static.key,
                docs=request.docs,
                thresholds=request.thresholds,
            ),
            timeout=timedelta(minutes=10),
        )
        counts = found.counts
        kit.set(
            "find",
            PhaseState.done,
            f"{counts.get('must_update', 0)} must update, {counts.get('review', 0)} review, "
            f"{counts.get('probably_fine', 0)} probably fine",
        )
        outcomes, skipped = await self._agents(request, rng, found)
        report: ReportRefs = await kit.step(
            "report",
            build_report,
            ReportInput(
                workflow_id=workflow.info().workflow_id,
                range=rng,
                findings_key=found.findings_key,
                outcomes=outcomes,
                edits_skipped=skipped,
            ),
            timeout=timedelta(minutes=5),
        )
        kit.set("report", PhaseState.done, f"{report.edits} edits")
        comment = await self._publish(request, report)
        return DocsyncResult(
            workflow_id=workflow.info().workflow_id,
            repo=rng.location,
            base_sha=rng.merge_base_sha,
            head_sha=rng.head_sha,
            counts=counts,
            docs_scanned=found.docs_scanned,
            outcomes=outcomes,
            edits_skipped=skipped,
            report_key=report.report_key,
            markdown_key=report.markdown_key,
            comment_key=report.comment_key,
            patch_key=report.patch_key,
            comment_url=comment.url if comment else None,
            cost_usd=kit.status().total_usd,
            inline=report.inline,
        )

    async def _agents(
        self, request: DocsyncRequest, rng: ResolvedRange, found: FindSummary
    ) -> tuple[list[DocOutcome], str | None]:
        """One agent per doc to edit; without a model, why the edits were skipped."""
        kit, plan = self.kit, request.llm
        if not found.to_edit:
            kit.set("agents", PhaseState.skipped, "no doc to edit")
            return [], None
        reason: str | None = None
        if not plan.enabled:
            reason = "no model configured (static mode)"
        else:
            configured: bool = await workflow.execute_activity(
                llm_configured,
                start_to_close_timeout=timedelta(seconds=30),
                task_queue=plan.task_queue,
                retry_policy=NETWORK_RETRY,
            )
            if not configured:
                reason = "ANTHROPIC_API_KEY is not set on the worker (static mode)"
        if reason is not None:
            kit.set("agents", PhaseState.skipped, reason)
            return [], reason
        kit.set("agents", PhaseState.skipped, "doc agents are not available yet")
        return [], "doc agents are not available yet"

    async def _publish(
        self, request: DocsyncRequest, report: ReportRefs
    ) -> CommentUpsertResult | None:
        kit = self.kit
        if not (request.post_comment and request.pull_request):
            kit.set("publish", PhaseState.skipped, "not asked to post")
            return None
        comment: CommentUpsertResult = await kit.step(
            "publish",
            upsert_pr_comment,
            CommentUpsertInput(
                pr=request.pull_request, marker=DOCSYNC_COMMENT_MARKER, body_key=report.comment_key
            ),
            task_queue=request.github_task_queue,
            timeout=timedelta(seconds=60),
            retry=NETWORK_RETRY,
            summary=f"upsert docsync comment on {request.pull_request.slug}",
        )
        kit.set("publish", PhaseState.done, comment.url)
        return comment
