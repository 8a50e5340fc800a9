"""The ``conversation`` workflow: one per open PR that prflow reviewed, until it closes.

The first posted review starts it (signal-with-start); every later review, and
every PR event the webhook receiver or the poller sees, arrives as a typed
signal. Each event id is handled once (:func:`prflow.conversation.rules.admit`),
in arrival order: a reply in one of prflow's threads gets one answer from a
budget-capped agent, a push gets the open threads it fixed resolved, a close
ends the run. Idle, it continues-as-new when its history grows, carrying its
bounded state. Decisions are code in :mod:`prflow.conversation`; I/O is in
:mod:`activities.conversation`.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from activities.conversation import (
        post_reply,
        prepare_reply,
        record_finding_verdict,
        sweep_threads,
    )
    from activities.conversation_fix import deliver_fix, post_note, prepare_fix
    from prflow.agent.state import RepoToolBackend, spec_from_prompt
    from prflow.conversation import commands, markers, rules
    from prflow.conversation.commands import Command, CommandName
    from prflow.conversation.events import (
        IssueCommentEvent,
        PullAction,
        PullEvent,
        ReviewCommentEvent,
        ReviewPosted,
        ThreadEvent,
    )
    from prflow.conversation.kind import PHASE, WORKFLOW_KIND, Signal
    from prflow.conversation.models import (
        DeliverFix,
        FixDelivered,
        FixPlan,
        PostedReply,
        PostNote,
        PostReply,
        ReadFix,
        ReadReply,
        RecordVerdict,
        ReplyPlan,
        Sweep,
        SweepResult,
    )
    from prflow.conversation.prompt import SUBMIT_REPLY, Verdict, parse_verdict
    from prflow.conversation.state import AnyEvent, ConversationState, ConversationSummary
    from prflow.refactor.report import pr_title
    from prflow.refactor.run_models import RefactorRequest, RefactorResult, RunStatus
    from prflow.run_progress import PhaseState
    from workflows.routing import child_memo
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit

PHASES = ["wait", "answer", "resolve", "fix"]
COMMANDS = "conversation-commands-v1"
"""Patch: ``/prflow ask`` and ``/prflow fix`` in comments (before it, such comments were
answered, or not, like any other comment)."""
FIX_DEADLINE_SECONDS = 1_800
"""A fix's refactor run ends (aborted, nothing pushed) after half an hour."""
FIX_RETRIES = 1
"""Attempts the refactor's ladder gives a failing step of a fix, beyond its first."""
SHORT = timedelta(minutes=5)
SWEEP_TIMEOUT = timedelta(minutes=15)
GITHUB_HEARTBEAT = timedelta(seconds=10)
"""A worker killed mid-write costs the conversation this long before another one retries
(the retry finds the write by its marker and does not repeat it)."""


@workflow.defn(name=WORKFLOW_KIND)
class ConversationWorkflow(KindWorkflow):
    @workflow.init
    def __init__(self, state: ConversationState) -> None:
        self.kit = RunKit(WORKFLOW_KIND, PHASES)
        self.state = state

    # ------------------------------------------------------------------ signals

    @workflow.signal(name=Signal.REVIEW_POSTED)
    def review_posted(self, event: ReviewPosted) -> None:
        rules.admit(self.state, event)

    @workflow.signal(name=Signal.REVIEW_COMMENT)
    def review_comment(self, event: ReviewCommentEvent) -> None:
        rules.admit(self.state, event)

    @workflow.signal(name=Signal.REVIEW_THREAD)
    def review_thread(self, event: ThreadEvent) -> None:
        rules.admit(self.state, event)

    @workflow.signal(name=Signal.ISSUE_COMMENT)
    def issue_comment(self, event: IssueCommentEvent) -> None:
        rules.admit(self.state, event)

    @workflow.signal(name=Signal.PULL_REQUEST)
    def pull_request(self, event: PullEvent) -> None:
        rules.admit(self.state, event)

    @workflow.query
    def status(self) -> ConversationState:
        return self.state

    # ------------------------------------------------------------------ the loop

    @workflow.run
    async def run(self, state: ConversationState) -> ConversationSummary:
        state = self.state
        pr = state.pr
        self.kit.tag(repo=f"{pr.owner}/{pr.repo}", pr=pr.number)
        while not state.closed:
            self.kit.set("wait", PhaseState.running)
            await workflow.wait_condition(lambda: bool(state.pending) or self._history_is_long())
            if state.pending:
                await self._handle(state.pending[0])
                state.pending.pop(0)
                state.tally.events += 1
            if not state.closed and self._history_is_long():
                await workflow.wait_condition(workflow.all_handlers_finished)
                state.continued += 1
                workflow.continue_as_new(state)
        self.kit.set("wait", PhaseState.done, "merged" if state.merged else "closed")
        return ConversationSummary(
            pr=pr, merged=state.merged, head_sha=state.head_sha, tally=state.tally
        )

    async def _handle(self, event: AnyEvent) -> None:
        state = self.state
        if isinstance(event, ReviewPosted):
            state.head_sha = event.head_sha
            rules.note(state, f"review posted at {event.head_sha[:12]}")
        elif isinstance(event, (ReviewCommentEvent, IssueCommentEvent)):
            command = commands.parse_command(event.body)
            if command is not None and workflow.patched(COMMANDS):
                await self._command(event, command)
            elif rules.worth_reading(event):
                await self._answer(event)
            else:
                state.tally.not_answered += 1
        elif isinstance(event, ThreadEvent):
            if not rules.is_bot(event.actor, event.actor_type):
                rules.leave_alone(state, event.root_comment_id)
        elif event.action == PullAction.closed:
            state.closed, state.merged = True, event.merged
        elif event.head_sha is not None and not self._newer_head_pending():
            state.head_sha = event.head_sha
            await self._resolve_fixed(event.head_sha)

    def _newer_head_pending(self) -> bool:
        """A later push is queued: sweeping this head would be wasted work."""
        return any(
            isinstance(e, PullEvent) and e.action == PullAction.synchronize
            for e in self.state.pending[1:]
        )

    # ------------------------------------------------------------------ answering

    async def _answer(
        self, event: ReviewCommentEvent | IssueCommentEvent, question: str | None = None
    ) -> None:
        state, kit = self.state, self.kit
        plan: ReplyPlan = await kit.step(
            "answer",
            prepare_reply,
            ReadReply(pr=state.pr, comment=event, question=question),
            task_queue=state.queues.main,
            timeout=SHORT,
            retry=NETWORK_RETRY,
            summary=f"read the thread of comment {event.comment_id}",
        )
        skip = plan.skip
        if skip is None and (state.plan is None or not state.plan.enabled):
            skip = "no model configured (static mode)"
        if skip is None and not rules.may_reply(state, workflow.now()):
            skip = f"rate limit: {state.replies_per_hour} answers an hour on this PR"
        if skip is not None or plan.prompt is None or plan.range is None or state.plan is None:
            state.tally.not_answered += 1
            rules.note(state, f"comment {event.comment_id}: not answered ({skip})")
            kit.set("answer", PhaseState.done, f"comment {event.comment_id}: {skip}")
            return
        spec = spec_from_prompt(
            plan.prompt,
            name=f"reply:{event.comment_id}",
            workflow_kind=WORKFLOW_KIND,
            phase=PHASE,
            plan=state.plan,
            terminal_tool=SUBMIT_REPLY.name,
            tool_backend=RepoToolBackend(range=plan.range),
            repo=f"{state.pr.owner}/{state.pr.repo}",
            pr_number=state.pr.number,
        )
        outcome = await kit.run_inline_agent(spec)
        verdict = parse_verdict(outcome.terminal_input)
        if verdict is None:
            state.tally.not_answered += 1
            rules.note(state, f"comment {event.comment_id}: no answer ({outcome.stop.value})")
            kit.set("answer", PhaseState.failed, f"agent stopped: {outcome.detail or outcome.stop}")
            return
        rules.note_reply(state, workflow.now())
        posted: PostedReply = await kit.step(
            "answer",
            post_reply,
            PostReply(pr=state.pr, comment=event, verdict=verdict.verdict, answer=verdict.answer),
            task_queue=state.queues.github,
            timeout=SHORT,
            retry=NETWORK_RETRY,
            heartbeat=GITHUB_HEARTBEAT,
            summary=f"answer comment {event.comment_id}",
        )
        state.tally.replies += 1
        if verdict.verdict == Verdict.accepted:
            state.tally.accepted += 1
        elif verdict.verdict == Verdict.rebutted:
            state.tally.rebutted += 1
        else:
            state.tally.questions += 1
        if plan.fingerprint and verdict.verdict != Verdict.question:
            await kit.step(
                "answer",
                record_finding_verdict,
                RecordVerdict(
                    repo=f"{state.pr.owner}/{state.pr.repo}",
                    pr_number=state.pr.number,
                    fingerprint=plan.fingerprint,
                    dimension=plan.dimension,
                    verdict=verdict.verdict.value,
                    head_sha=plan.head_sha,
                ),
                task_queue=state.queues.main,
                timeout=timedelta(minutes=1),
            )
        rules.note(state, f"comment {event.comment_id}: {verdict.verdict.value}, {posted.url}")
        kit.set("answer", PhaseState.done, posted.url)

    # ------------------------------------------------------------------ commands

    async def _command(
        self, event: ReviewCommentEvent | IssueCommentEvent, command: Command
    ) -> None:
        """``/prflow ask`` or ``/prflow fix``: only from owners, members and collaborators,
        never from a bot; anyone else's command is not answered at all."""
        state = self.state
        if rules.is_bot(event.author, event.author_type) or not commands.may_command(
            event.author_association
        ):
            state.tally.not_answered += 1
            rules.note(
                state,
                f"comment {event.comment_id}: /prflow {command.name.value} ignored "
                f"({event.author_association} may not give commands)",
            )
            return
        if command.name == CommandName.ask:
            await self._answer(event, question=command.text or event.body)
        else:
            await self._fix(event, command)

    async def _fix(self, event: ReviewCommentEvent | IssueCommentEvent, command: Command) -> None:
        """Run the refactor on the PR's head for the thread; push its validated change as one
        commit (or a stacked draft PR), and tell the thread what happened, once."""
        state, kit = self.state, self.kit
        if not rules.may_reply(state, workflow.now()):
            state.tally.not_answered += 1
            rules.note(state, f"comment {event.comment_id}: /prflow fix not run (rate limit)")
            return
        plan: FixPlan = await kit.step(
            "fix",
            prepare_fix,
            ReadFix(
                pr=state.pr,
                comment=event,
                note=command.text,
                llm_queue=state.queues.llm,
                with_model=state.plan is not None and state.plan.enabled,
            ),
            task_queue=state.queues.main,
            timeout=SHORT,
            retry=NETWORK_RETRY,
            summary=f"read the thread of /prflow fix {event.comment_id}",
        )
        if plan.skip is not None:
            state.tally.not_answered += 1
            rules.note(state, f"comment {event.comment_id}: /prflow fix skipped ({plan.skip})")
            kit.set("fix", PhaseState.done, plan.skip)
            return
        rules.note_reply(state, workflow.now())
        if plan.refuse is not None:
            state.tally.fixes_refused += 1
            await self._note(event, plan.root_comment_id, commands.refused_text(plan.refuse))
            kit.set("fix", PhaseState.done, f"refused: {plan.refuse}"[:200])
            return
        text = await self._run_fix(event, plan)
        await self._note(event, plan.root_comment_id, text)
        rules.note(state, f"comment {event.comment_id}: /prflow fix: {text}")
        kit.set("fix", PhaseState.done, text[:200])

    async def _run_fix(self, event: ReviewCommentEvent | IssueCommentEvent, plan: FixPlan) -> str:
        """The refactor as a child workflow; what the thread is told about its outcome."""
        state = self.state
        request = RefactorRequest(
            repo=plan.clone_url,
            base=plan.head_sha,
            directive=plan.directive,
            plans=plan.plans,
            test_command=plan.test_command,
            max_retries=FIX_RETRIES,
            deadline_seconds=FIX_DEADLINE_SECONDS,
        )
        try:
            result: RefactorResult = await workflow.execute_child_workflow(
                "refactor",
                request,
                id=f"refactor:{state.pr.slug}:fix-{event.comment_id}",
                task_queue=state.queues.main,
                memo=child_memo(state.queues),
                result_type=RefactorResult,
                static_summary=f"/prflow fix {event.comment_id} on {state.pr.slug}",
            )
        except ChildWorkflowError as err:
            state.tally.fixes_failed += 1
            return f"No fix pushed: the fix run failed ({str(err.cause or err)[:300]})."
        patch_key = result.artifact_keys.get("combined.patch")
        if result.status != RunStatus.validated or not result.changed_files or not patch_key:
            state.tally.fixes_failed += 1
            return commands.not_validated_text(
                result.status.value, result.reason, result.regressions
            )
        try:
            delivered: FixDelivered = await self._deliver(event, plan, result, patch_key)
        except ActivityError as err:  # GitHub refused for good (permissions, a gone branch)
            state.tally.fixes_failed += 1
            said = str(err.cause or err)[:300]
            return f"No fix pushed: the change validated, but delivering it failed ({said})."
        if delivered.refused is not None:
            state.tally.fixes_failed += 1
            return f"No fix pushed: the change validated, but {delivered.refused}."
        state.tally.fixes += 1
        if delivered.pushed:
            return commands.pushed_text(delivered.sha, delivered.url, plan.head_branch)
        return commands.draft_text(delivered.url, plan.head_branch, plan.why_draft)

    async def _deliver(
        self,
        event: ReviewCommentEvent | IssueCommentEvent,
        plan: FixPlan,
        result: RefactorResult,
        patch_key: str,
    ) -> FixDelivered:
        state = self.state
        delivered: FixDelivered = await self.kit.step(
            "fix",
            deliver_fix,
            DeliverFix(
                pr=state.pr,
                comment_id=event.comment_id,
                plan=plan,
                patch_key=patch_key,
                body_key=result.artifact_keys["pr-summary.md"],
                title=pr_title(f"Fix: {result.plan_summary or 'the review comment'}"),
            ),
            task_queue=state.queues.github,
            timeout=SHORT,
            retry=NETWORK_RETRY,
            heartbeat=GITHUB_HEARTBEAT,
            summary=f"deliver /prflow fix {event.comment_id}",
        )
        return delivered

    async def _note(
        self, event: ReviewCommentEvent | IssueCommentEvent, root: int | None, text: str
    ) -> None:
        posted: PostedReply = await self.kit.step(
            "fix",
            post_note,
            PostNote(
                pr=self.state.pr,
                comment=event,
                root_comment_id=root,
                text=text,
                marker=markers.fix_marker(event.comment_id),
            ),
            task_queue=self.state.queues.github,
            timeout=SHORT,
            retry=NETWORK_RETRY,
            heartbeat=GITHUB_HEARTBEAT,
            summary=f"answer /prflow fix {event.comment_id}",
        )
        self.state.tally.replies += 1
        rules.note(self.state, f"comment {event.comment_id}: answered, {posted.url}")

    # ------------------------------------------------------------------ resolving

    async def _resolve_fixed(self, head_sha: str) -> None:
        state = self.state
        swept: SweepResult = await self.kit.step(
            "resolve",
            sweep_threads,
            Sweep(pr=state.pr, head_sha=head_sha, left_alone=list(state.left_alone)),
            task_queue=state.queues.github,
            timeout=SWEEP_TIMEOUT,
            retry=NETWORK_RETRY,
            heartbeat=GITHUB_HEARTBEAT,
            summary=f"resolve the threads {head_sha[:12]} fixed",
        )
        state.tally.resolved += len(swept.resolved)
        detail = f"{head_sha[:12]}: {len(swept.resolved)} resolved, {swept.still_open} still hold"
        rules.note(state, detail)
        self.kit.set("resolve", PhaseState.done, detail)

    # ------------------------------------------------------------------ long life

    def _history_is_long(self) -> bool:
        info = workflow.info()
        return (
            info.is_continue_as_new_suggested()
            or info.get_current_history_length() > self.state.history_limit
        )
