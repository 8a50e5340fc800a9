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
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.docsync import build_report, collect_edits, doc_prompts, find_docs
    from activities.github.draft_pr import open_draft_pr
    from activities.impact_analysis import collect_changes, static_analysis
    from activities.llm import llm_configured
    from activities.workspace import workspace_branch, workspace_open
    from prflow.agent.outcome import AgentOutcome
    from prflow.agent.state import WorkspaceToolBackend, spec_from_prompt
    from prflow.docsync.agent import FINISH_TOOL, doc_outcome
    from prflow.docsync.run_models import (
        AGENT_PHASE,
        DOCSYNC_COMMENT_MARKER,
        WORKFLOW_KIND,
        CollectInput,
        CollectResult,
        DocOutcome,
        DocPrompt,
        DocsyncRequest,
        DocsyncResult,
        FindInput,
        FindSummary,
        PromptsInput,
        ReportInput,
        ReportRefs,
    )
    from prflow.github_models import CommentUpsertResult, PullRequestInfo
    from prflow.impact.run_models import ChangeSet, StaticSummary
    from prflow.impact.stage_inputs import StaticInput
    from prflow.repo_models import ResolvedRange
    from prflow.run_progress import PhaseState
    from prflow.workspace.models import (
        DraftPullRequest,
        DraftPullRequestInput,
        WorkspaceBranch,
        WorkspaceBranchInput,
        WorkspaceOpenInput,
        WorkspaceRef,
    )
    from prflow.workspace.tools import EDIT_ARTICLE
    from workflows.routing import github_queue, llm_queue
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit
    from workflows.targets import resolve_target

PHASES = ["resolve", "changes", "static", "find", "agents", "report", "publish"]
PLATFORM_BRANCH = "docsync-platform-branch"
"""``--branch`` commits through the platform's ``workspace_branch`` step (the CLI used to)."""


@workflow.defn(name=WORKFLOW_KIND)
class DocsyncWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, PHASES)

    @workflow.run
    async def run(self, request: DocsyncRequest) -> DocsyncResult:
        kit = self.kit
        pr = request.pull_request
        kit.tag(repo=f"{pr.owner}/{pr.repo}" if pr else request.repo, pr=pr.number if pr else None)
        rng, info = await resolve_target(
            kit,
            pull_request=request.pull_request,
            repo=request.repo,
            base=request.base,
            head=request.head,
            github_task_queue=github_queue(request.github_task_queue),
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
        outcomes, skipped, workspaces, combined = await self._agents(request, rng, found)
        made, refused = None, None
        if request.branch and combined is not None and workflow.patched(PLATFORM_BRANCH):
            made, refused = await self._branch(request.branch, rng, combined)
        report: ReportRefs = await kit.step(
            "report",
            build_report,
            ReportInput(
                workflow_id=workflow.info().workflow_id,
                range=rng,
                findings_key=found.findings_key,
                outcomes=outcomes,
                workspaces=workspaces,
                edits_skipped=skipped,
                branch=made.branch if made else None,
            ),
            timeout=timedelta(minutes=5),
        )
        kit.set("report", PhaseState.done, f"{report.edits} edits")
        draft = None
        if request.open_pr and info is not None and combined is not None:
            draft = await self._open_pr(request, info, rng, combined, report)
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
            branch=made.branch if made else None,
            branch_commit=made.commit_sha if made else None,
            branch_refused=refused,
            comment_url=comment.url if comment else None,
            pr_url=draft.html_url if draft else None,
            cost_usd=kit.status().total_usd,
            inline=report.inline,
        )

    async def _agents(
        self, request: DocsyncRequest, rng: ResolvedRange, found: FindSummary
    ) -> tuple[list[DocOutcome], str | None, dict[str, WorkspaceRef], WorkspaceRef | None]:
        """One agent per doc to edit; without a model, why the edits were skipped."""
        kit, plan = self.kit, request.llm
        if not found.to_edit or request.max_docs == 0:
            kit.set("agents", PhaseState.skipped, "no doc to edit")
            return [], None, {}, None
        reason: str | None = None
        if not plan.enabled:
            reason = "no model configured (static mode)"
        else:
            configured: bool = await workflow.execute_activity(
                llm_configured,
                start_to_close_timeout=timedelta(seconds=30),
                task_queue=llm_queue(plan.task_queue),
                retry_policy=NETWORK_RETRY,
            )
            if not configured:
                reason = "ANTHROPIC_API_KEY is not set on the worker (static mode)"
        if reason is not None:
            kit.set("agents", PhaseState.skipped, reason)
            return [], reason, {}, None
        docs = [doc.path for doc in found.to_edit[: request.max_docs]]
        workflow_id = workflow.info().workflow_id
        start: WorkspaceRef = await kit.step(
            "agents",
            workspace_open,
            WorkspaceOpenInput(repo=rng.location, base=rng.head_sha, run_id=workflow_id),
            timeout=timedelta(minutes=10),
        )
        prompts: list[DocPrompt] = await kit.step(
            "agents",
            doc_prompts,
            PromptsInput(
                range=rng, findings_key=found.findings_key, docs=docs, edit_tool=EDIT_ARTICLE
            ),
            timeout=timedelta(minutes=5),
        )
        pr = request.pull_request
        specs = [
            spec_from_prompt(
                item.prompt,
                name=f"{AGENT_PHASE}:{item.path}",
                workflow_kind=WORKFLOW_KIND,
                phase=AGENT_PHASE,
                plan=plan,
                terminal_tool=FINISH_TOOL.name,
                tool_backend=WorkspaceToolBackend(workspace=start, editable=[item.path]),
                repo=f"{pr.owner}/{pr.repo}" if pr else rng.location,
                pr_number=pr.number if pr else None,
            )
            for item in prompts
        ]
        kit.set("agents", PhaseState.running, f"{len(specs)} docs")
        finished: list[AgentOutcome] = await kit.run_child_agents(
            specs, max_concurrency=request.max_concurrency
        )
        ends = dict(zip(docs, finished, strict=True))
        collected: CollectResult = await kit.step(
            "agents",
            collect_edits,
            CollectInput(
                workspaces={path: end.workspace for path, end in ends.items()}, start=start
            ),
            timeout=timedelta(minutes=2),
        )
        outcomes = [
            doc_outcome(path, end, collected.patch_keys.get(path, [])) for path, end in ends.items()
        ]
        edited = sum(1 for o in outcomes if o.edits)
        kit.set("agents", PhaseState.done, f"{edited} of {len(outcomes)} docs edited")
        workspaces = {
            path: end.workspace
            for path, end in ends.items()
            if end.workspace is not None and collected.patch_keys.get(path)
        }
        return outcomes, None, workspaces, collected.combined

    async def _branch(
        self, branch: str, rng: ResolvedRange, combined: WorkspaceRef
    ) -> tuple[WorkspaceBranch | None, str | None]:
        """Commit every doc's edits on a new local branch from the head commit (the working
        tree untouched); a user's mistake (the branch exists, a bad name) is the refusal."""
        message = (
            f"docs: sync with {rng.head_sha[:12]} (prflow docsync {workflow.info().workflow_id})"
        )
        try:
            made: WorkspaceBranch = await self.kit.step(
                "publish",
                workspace_branch,
                WorkspaceBranchInput(workspace=combined, branch=branch, message=message),
                timeout=timedelta(minutes=2),
                summary=f"commit the doc edits on branch {branch}",
            )
        except ActivityError as err:
            refused = self.kit.refusal("publish", err)
            if refused is None:
                raise
            return None, refused
        return made, None

    async def _open_pr(
        self,
        request: DocsyncRequest,
        info: PullRequestInfo,
        rng: ResolvedRange,
        combined: WorkspaceRef,
        report: ReportRefs,
    ) -> DraftPullRequest:
        """One draft follow-up PR on the PR's own branch with every doc's edits."""
        pr = info.ref
        draft: DraftPullRequest = await self.kit.step(
            "publish",
            open_draft_pr,
            DraftPullRequestInput(
                workspace=combined,
                repository=f"{pr.owner}/{pr.repo}",
                branch=f"prflow/docsync-{pr.number}-{rng.head_sha[:12]}",
                base_branch=info.head_ref,
                title=f"docs: sync the docs with #{pr.number}",
                body_key=report.markdown_key,
            ),
            task_queue=github_queue(request.github_task_queue),
            timeout=timedelta(minutes=2),
            retry=NETWORK_RETRY,
            summary=f"open the docsync draft PR for {pr.slug}",
        )
        return draft

    async def _publish(
        self, request: DocsyncRequest, report: ReportRefs
    ) -> CommentUpsertResult | None:
        return await self.kit.publish_sticky_comment(
            request.pull_request,
            asked=request.post_comment,
            marker=DOCSYNC_COMMENT_MARKER,
            body_key=report.comment_key,
            task_queue=github_queue(request.github_task_queue),
        )
