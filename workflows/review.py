"""The ``review`` workflow: intake → anatomy → planning → reviewers ⇄ review layer → synthesis
→ output.

Orchestration only. Code classifies and maps the change first; a budget-tier
call classifies the PR (an agent takes over when it is unsure), a mid-tier
agent tells its story, a premium agent plans the review dimensions, and the
reviewers and the review layer overlap (see :mod:`workflows.review_fanout`).
What the review says is decided by the synthesis activity, in code. A phase
that reaches its cap stops; the review still posts, marked incomplete, naming
the phase. With no model, the model phases are reported as skipped.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.conversation import open_conversation
    from activities.github import upsert_pr_comment
    from activities.github.pull_files import pull_patches
    from activities.github.reviews import post_review, review_history
    from activities.impact_analysis import collect_changes, static_analysis
    from activities.llm import llm_configured
    from activities.review import (
        review_anatomy_prompt,
        review_facts,
        review_finalize_plan,
        review_intake_prompt,
        review_planning_prompt,
        review_read_marks,
        review_record_marks,
        review_scope,
        review_synthesize,
    )
    from prflow import search_attributes as sa
    from prflow.conversation.events import ReviewPosted
    from prflow.conversation.models import OpenConversation
    from prflow.github_models import CommentUpsertInput, CommentUpsertResult
    from prflow.impact.run_models import ChangeSet, StaticSummary
    from prflow.impact.stage_inputs import StaticInput
    from prflow.pr_identifier import PullRequestRef
    from prflow.queue.state import QueueNames
    from prflow.repo_models import ResolvedRange
    from prflow.review.agents.anatomy_reader import SUBMIT_ANATOMY, parse_anatomy
    from prflow.review.agents.intake import SUBMIT_INTAKE, parse_intake
    from prflow.review.agents.planner import SUBMIT_PLAN
    from prflow.review.depth_limits import limits_for, token_capped
    from prflow.review.models import IntakeResult, ReviewPlan, SemanticAnatomy
    from prflow.review.pull_patches import PullPatches
    from prflow.review.render.github_review import run_marker
    from prflow.review.render.summary import REVIEW_COMMENT_MARKER
    from prflow.review.run_models import (
        STEPS,
        WORKFLOW_KIND,
        ReviewPhase,
        ReviewRequest,
        ReviewResult,
    )
    from prflow.review.stage_models import (
        AgentPromptInput,
        FactsInput,
        FactsRefs,
        MarksInput,
        PlanInput,
        PostedReview,
        PostReviewInput,
        ReviewHistory,
        ReviewScope,
        ScopeInput,
        StoredMarks,
        SynthesisInput,
        SynthesisRefs,
    )
    from prflow.run_progress import PhaseState
    from workflows.review_fanout import BOUNDED_BY_DEPTH, ReviewFanOut
    from workflows.review_phases import PhaseBook, ReviewRun
    from workflows.routing import ROUTES_PATCH, github_queue, llm_queue, run_queues
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit
    from workflows.targets import resolve_target

SHORT = timedelta(minutes=5)
LONG = timedelta(minutes=20)
GITHUB_PLACEMENT = "review-placed-on-githubs-patches-v1"
"""A PR run reads GitHub's per-file patches before synthesis and places findings on them."""
ANATOMY_DIFFS = "review-anatomy-sees-largest-diffs-v1"
"""Patch: anatomy's first message carries the diffs of the largest changes that fit."""
STARTS_CONVERSATION = "review-starts-conversation-v1"
"""Patch: a posted review starts (or signals) the PR's conversation workflow."""
SIZED_TO_THE_CHANGE = "review-sized-to-the-change-v1"
"""Patch: below the depth's bounds, dimensions, reviewers in all and deep dives follow the
size of the reviewable change (:func:`prflow.review.depth_limits.limits_for`)."""


@workflow.defn(name=WORKFLOW_KIND)
class ReviewWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, list(STEPS))
        self.book = PhaseBook(self.kit)

    @workflow.run
    async def run(self, request: ReviewRequest) -> ReviewResult:
        kit, book = self.kit, self.book
        if workflow.patched(BOUNDED_BY_DEPTH):
            book.bounded = True
            request = request.model_copy(
                update={"plans": token_capped(request.plans, request.depth)}
            )
        pr = request.pull_request
        kit.tag(repo=f"{pr.owner}/{pr.repo}" if pr else request.repo, pr=pr.number if pr else None)
        kit.start_deadline(request.deadline_seconds)
        rng, _ = await resolve_target(
            kit,
            pull_request=pr,
            repo=request.repo,
            base=request.base,
            head=request.head,
            github_task_queue=github_queue(request.github_task_queue),
        )
        history = await self._history(request)
        scope: ReviewScope = await kit.step(
            "resolve",
            review_scope,
            ScopeInput(range=rng, last_head_sha=None if request.full else history.last_head_sha),
            timeout=SHORT,
        )
        if scope.nothing_new:
            return self._nothing_new(rng, scope)
        changes: ChangeSet = await kit.step("anatomy", collect_changes, rng, timeout=LONG)
        static: StaticSummary = await kit.step(
            "anatomy", static_analysis, StaticInput(range=rng, changes=changes), timeout=LONG
        )
        facts: FactsRefs = await kit.step(
            "anatomy",
            review_facts,
            FactsInput(
                range=rng,
                scope=scope,
                changes=changes,
                static_key=static.key,
                metadata=history.metadata,
            ),
            timeout=LONG,
        )
        model = await self._model_available(request)
        run = ReviewRun(request, rng, scope, facts, facts.code_intake)
        if book.bounded and workflow.patched(SIZED_TO_THE_CHANGE):
            run.size = facts.size
        run.intake = await self._intake(run, model)
        run.semantic = await self._anatomy(run, model)
        plan = await self._plan(run, model)
        fanout = ReviewFanOut(run, book)
        if plan is not None and plan.dimensions:
            run.hints = plan.cross_ref_hints
            await fanout.review(plan.dimensions)
        else:
            why = "no model configured (static mode)" if not model else "nothing to review"
            kit.set("reviewers", PhaseState.skipped, why)
            kit.set("review_layer", PhaseState.skipped, why)
        workflow_id = workflow.info().workflow_id
        patches = await self._github_patches(request)
        synthesis: SynthesisRefs = await kit.step(
            "synthesis",
            review_synthesize,
            SynthesisInput(
                range=rng,
                scope=scope,
                pull_request=pr,
                changes=changes,
                static_key=static.key,
                facts_key=facts.facts_key,
                structure_key=facts.structure_key,
                batch_keys=fanout.batches,
                verdicts=fanout.verdicts,
                compound_fingerprints=sorted(fanout.compounds),
                intake=run.intake,
                semantic=run.semantic,
                plan=plan,
                examined=fanout.examined_files,
                rejected=fanout.rejected,
                phases=book.report(model),
                history=history,
                depth=request.depth,
                used_model=model,
                workflow_id=workflow_id,
                run_marker=run_marker(f"{workflow_id}/{workflow.info().run_id}", rng.head_sha),
                cost_usd=kit.status().total_usd,
                github_patches=patches,
            ),
            timeout=SHORT,
        )
        kit.set(
            "synthesis",
            PhaseState.done,
            f"{synthesis.event.value}: {synthesis.findings} findings, "
            f"{synthesis.inline_comments} inline",
        )
        workflow.upsert_search_attributes(
            [
                sa.RISK_SCORE.value_set(synthesis.risk_score),
                sa.RISK_LEVEL.value_set(synthesis.risk_level),
            ]
        )
        posted, summary = await self._output(request, rng, synthesis)
        return ReviewResult(
            workflow_id=workflow_id,
            repo=rng.location,
            base_sha=rng.merge_base_sha,
            head_sha=rng.head_sha,
            reviewed_from_sha=scope.review_range.merge_base_sha if scope.incremental else None,
            event=synthesis.event,
            findings=synthesis.findings,
            inline_comments=posted.inline_comments if posted else synthesis.inline_comments,
            body_findings=synthesis.body_findings,
            by_severity=synthesis.by_severity,
            complete=synthesis.complete,
            cut_phases=book.names(PhaseState.failed, model),
            skipped_phases=book.names(PhaseState.skipped, model),
            risk_score=synthesis.risk_score,
            risk_level=synthesis.risk_level,
            report_key=synthesis.report_key,
            markdown_key=synthesis.markdown_key,
            sarif_key=synthesis.sarif_key,
            inline=synthesis.inline,
            review_url=posted.url if posted else None,
            summary_url=summary.url if summary else None,
            cost_usd=kit.status().total_usd,
        )

    # ------------------------------------------------------------------ before the agents

    async def _history(self, request: ReviewRequest) -> ReviewHistory:
        """What earlier reviews of the PR left, on GitHub and in the store."""
        pr = request.pull_request
        if pr is None:
            return ReviewHistory()
        history: ReviewHistory = await self.kit.step(
            "resolve",
            review_history,
            pr,
            task_queue=github_queue(request.github_task_queue),
            timeout=timedelta(minutes=2),
            retry=NETWORK_RETRY,
            summary=f"earlier reviews of {pr.slug}",
        )
        stored: StoredMarks = await self.kit.step(
            "resolve",
            review_read_marks,
            MarksInput(repo=f"{pr.owner}/{pr.repo}", pr_number=pr.number),
            timeout=timedelta(minutes=1),
        )
        return history.model_copy(
            update={
                "last_head_sha": history.last_head_sha or stored.head_sha,
                "posted_fingerprints": sorted({*history.posted_fingerprints, *stored.fingerprints}),
            }
        )

    async def _github_patches(self, request: ReviewRequest) -> PullPatches | None:
        """For a PR run, the diff GitHub shows of it: findings are placed on those lines."""
        pr = request.pull_request
        if pr is None or not workflow.patched(GITHUB_PLACEMENT):
            return None
        patches: PullPatches = await self.kit.step(
            "synthesis",
            pull_patches,
            pr,
            task_queue=github_queue(request.github_task_queue),
            timeout=timedelta(minutes=3),
            retry=NETWORK_RETRY,
            summary=f"GitHub's diff of {pr.slug}",
        )
        return patches

    def _nothing_new(self, rng: ResolvedRange, scope: ReviewScope) -> ReviewResult:
        for step in STEPS[1:]:
            self.kit.set(step, PhaseState.skipped, scope.note)
        return ReviewResult(
            workflow_id=workflow.info().workflow_id,
            repo=rng.location,
            base_sha=rng.merge_base_sha,
            head_sha=rng.head_sha,
            reviewed_from_sha=rng.head_sha,
            already_reviewed=True,
        )

    async def _model_available(self, request: ReviewRequest) -> bool:
        if not request.uses_model:
            return False
        plan = next(iter(request.plans.values()))
        configured: bool = await workflow.execute_activity(
            llm_configured,
            start_to_close_timeout=timedelta(seconds=30),
            task_queue=llm_queue(plan.task_queue),
            retry_policy=NETWORK_RETRY,
        )
        return configured

    # ------------------------------------------------------------------ intake, anatomy, plan

    async def _intake(self, run: ReviewRun, model: bool) -> IntakeResult:
        """Code's classification, refined by a budget-tier call; an agent that can read the
        change takes over when the call is not confident."""
        code = run.facts.code_intake
        if not model:
            self.book.skip(ReviewPhase.intake, "static mode: classified in code", "intake")
            return code
        facts = run.facts
        outcome = await self.book.ask(
            run,
            step="intake",
            phase=ReviewPhase.intake,
            name="intake",
            prepare=review_intake_prompt,
            prompt_input=AgentPromptInput(
                facts_key=facts.facts_key, structure_key=facts.structure_key
            ),
            terminal=SUBMIT_INTAKE.name,
        )
        result = parse_intake(outcome.terminal_input, code, escalated=False)
        if result is None or not result.confident:
            escalated = await self.book.ask(
                run,
                step="intake",
                phase=ReviewPhase.intake_escalation,
                name="intake_escalation",
                prepare=review_intake_prompt,
                prompt_input=AgentPromptInput(
                    facts_key=facts.facts_key, structure_key=facts.structure_key, escalation=True
                ),
                terminal=SUBMIT_INTAKE.name,
                backend=run.tools(),
            )
            result = parse_intake(escalated.terminal_input, code, escalated=True) or result
        result = result or code
        self.book.show(
            "intake",
            [ReviewPhase.intake, ReviewPhase.intake_escalation],
            f"{result.pr_type}, {result.complexity}" + (" (escalated)" if result.escalated else ""),
        )
        return result

    async def _anatomy(self, run: ReviewRun, model: bool) -> SemanticAnatomy | None:
        """The structure is computed already; a mid-tier agent writes the narrative."""
        if not model:
            self.book.skip(ReviewPhase.anatomy, "static mode: structure only", "anatomy")
            return None
        outcome = await self.book.ask(
            run,
            step="anatomy",
            phase=ReviewPhase.anatomy,
            name="anatomy",
            prepare=review_anatomy_prompt,
            prompt_input=AgentPromptInput(
                facts_key=run.facts.facts_key,
                structure_key=run.facts.structure_key,
                intake=run.intake,
                review_range=run.scope.review_range if workflow.patched(ANATOMY_DIFFS) else None,
            ),
            terminal=SUBMIT_ANATOMY.name,
            backend=run.tools(),
        )
        self.book.show("anatomy", [ReviewPhase.anatomy])
        return parse_anatomy(outcome.terminal_input)

    async def _plan(self, run: ReviewRun, model: bool) -> ReviewPlan | None:
        """A premium agent writes the dimensions; code checks and completes the plan."""
        if not model:
            self.book.skip(ReviewPhase.planning, "static mode", "planning")
            return None
        if run.facts.reviewable == 0:
            self.book.skip(ReviewPhase.planning, "no reviewable changed files", "planning")
            return None
        facts = run.facts
        outcome = await self.book.ask(
            run,
            step="planning",
            phase=ReviewPhase.planning,
            name="planning",
            prepare=review_planning_prompt,
            prompt_input=AgentPromptInput(
                facts_key=facts.facts_key,
                structure_key=facts.structure_key,
                intake=run.intake,
                semantic=run.semantic,
                depth=run.request.depth,
                size=run.size,
            ),
            terminal=SUBMIT_PLAN.name,
            backend=run.tools(),
        )
        plan: ReviewPlan = await self.kit.step(
            "planning",
            review_finalize_plan,
            PlanInput(
                facts_key=facts.facts_key,
                structure_key=facts.structure_key,
                submitted=outcome.terminal_input,
                depth=run.request.depth,
                intake=run.intake,
                planner_problem=None if outcome.completed else f"planner stopped: {outcome.detail}",
                size=run.size,
            ),
            timeout=SHORT,
        )
        if run.size is not None:
            limits = limits_for(run.request.depth, run.size)
            low, high = limits.dimensions
            dives = "deep dive" if limits.deep_dives == 1 else "deep dives"
            self.book.remark(
                ReviewPhase.planning,
                f"sized to the change ({run.size.describe()}): "
                f"{high if low == high else f'{low}-{high}'} dimensions, {limits.reviewers} "
                f"reviewers in all, {limits.deep_dives} {dives}, {limits.prompt_tokens:,} tokens",
            )
        self.book.show(
            "planning", [ReviewPhase.planning], f"{len(plan.dimensions)} dimensions ({plan.origin})"
        )
        return plan

    # ------------------------------------------------------------------ output

    async def _output(
        self, request: ReviewRequest, rng: ResolvedRange, synthesis: SynthesisRefs
    ) -> tuple[PostedReview | None, CommentUpsertResult | None]:
        pr = request.pull_request
        if not request.post or pr is None:
            self.kit.set("output", PhaseState.skipped, "not asked to post")
            return None, None
        posted: PostedReview = await self.kit.step(
            "output",
            post_review,
            PostReviewInput(
                pr=pr,
                commit_sha=rng.head_sha,
                review_key=synthesis.review_key,
                run_marker=synthesis.run_marker,
            ),
            task_queue=github_queue(request.github_task_queue),
            timeout=timedelta(minutes=3),
            retry=NETWORK_RETRY,
            summary=f"post the review of {pr.slug}",
        )
        summary: CommentUpsertResult = await self.kit.step(
            "output",
            upsert_pr_comment,
            CommentUpsertInput(pr=pr, marker=REVIEW_COMMENT_MARKER, body_key=synthesis.summary_key),
            task_queue=github_queue(request.github_task_queue),
            timeout=timedelta(seconds=60),
            retry=NETWORK_RETRY,
            summary=f"update the review summary on {pr.slug}",
        )
        await self.kit.step(
            "output",
            review_record_marks,
            MarksInput(
                repo=f"{pr.owner}/{pr.repo}",
                pr_number=pr.number,
                head_sha=rng.head_sha,
                fingerprints=synthesis.fingerprints,
                workflow_id=workflow.info().workflow_id,
            ),
            timeout=timedelta(minutes=1),
        )
        if workflow.patched(STARTS_CONVERSATION):
            await self._open_conversation(request, pr, rng, posted)
        self.kit.set("output", PhaseState.done, posted.url)
        return posted, summary

    async def _open_conversation(
        self,
        request: ReviewRequest,
        pr: PullRequestRef,
        rng: ResolvedRange,
        posted: PostedReview,
    ) -> None:
        """The review is on the PR: its conversation (answers, resolutions) starts or goes on."""
        info = workflow.info()
        started: str = await self.kit.step(
            "output",
            open_conversation,
            OpenConversation(
                pr=pr,
                queues=run_queues()
                if workflow.patched(ROUTES_PATCH)
                else QueueNames(
                    main=info.task_queue,
                    llm=next(iter(request.plans.values())).task_queue or info.task_queue
                    if request.plans
                    else info.task_queue,
                    github=request.github_task_queue or info.task_queue,
                ),
                posted=ReviewPosted(
                    event_id=f"review:{info.workflow_id}",
                    head_sha=rng.head_sha,
                    review_url=posted.url,
                ),
            ),
            timeout=timedelta(minutes=1),
            retry=NETWORK_RETRY,
            summary=f"start the conversation on {pr.slug}",
        )
        self.kit.set("output", PhaseState.running, f"conversation {started}")
