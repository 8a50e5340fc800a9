"""Reviewers and the review layer, overlapping: findings stream from one to the other.

Reviewers (the one definition, one crafted prompt each) run as child agents
at bounded concurrency. The moment one finishes, its findings are checked and
put in the layer's inbox; the adversary and the cross-reference resolver run
passes over whatever the inbox holds while the other reviewers still work.
A reviewer may ask for two investigations, the resolver for five deep dives
in all, and the coverage gate for gap reviewers twice: each of those is the
same reviewer again, with a prompt written for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.review import (
        review_coverage_prompt,
        review_gap_dimensions,
        review_ingest_findings,
        review_ingest_layer,
        review_layer_prompt,
        review_reviewer_prompts,
    )
    from prflow.agent.messages import PreparedPrompt
    from prflow.agent.outcome import AgentOutcome, StopReason
    from prflow.agent.state import AgentRequest
    from prflow.review.agents.coverage import MAX_COVERAGE_ITERATIONS, SUBMIT_COVERAGE
    from prflow.review.agents.layer import CROSS_REF_DIMENSION, TOOL_OF, LayerRole
    from prflow.review.agents.reviewer import (
        MAX_INVESTIGATIONS,
        MAX_REFERENCE_HOPS,
        REQUEST_INVESTIGATION,
        SUBMIT_FINDINGS,
        InvestigationRequest,
        investigation_dimension,
        parse_investigations,
    )
    from prflow.review.budgets import MIN_PASS_USD, priority_weights
    from prflow.review.depth_limits import continued_chars, limits_for, pass_tokens
    from prflow.review.dimension_merge import merge_repeats, name_key, repeats_of, targets_key
    from prflow.review.models import Dimension, FindingSource
    from prflow.review.questions import investigation_key, new_questions, question_key
    from prflow.review.run_models import ReviewPhase
    from prflow.review.stage_models import (
        CoverageInput,
        FindingBatch,
        GapInput,
        IngestInput,
        LayerBatch,
        LayerContinuation,
        LayerIngestInput,
        LayerPromptInput,
        ReviewerPromptsInput,
    )
    from prflow.review.synthesis import AdversaryVerdict
    from prflow.run_progress import PhaseState
    from workflows.review_phases import PhaseBook, ReviewRun

MAX_LAYER_PASSES = 4
"""Passes of each layer agent; the last one waits for every remaining finding."""
MAX_DEEP_DIVES = 5
LAYER_PASS_SHARE = 0.5
"""Bounded reviews: a layer pass may use this part of its phase's tokens left (the last
pass all of it), so an exploring first pass leaves room for the findings after it."""
STEP = {
    ReviewPhase.reviewers: "reviewers",
    ReviewPhase.investigations: "reviewers",
    ReviewPhase.deep_dives: "review_layer",
    ReviewPhase.gap_reviewers: "review_layer",
}
LAYER_PHASES = (
    ReviewPhase.adversary,
    ReviewPhase.cross_ref,
    ReviewPhase.deep_dives,
    ReviewPhase.coverage,
    ReviewPhase.gap_reviewers,
)
TIMEOUT = timedelta(minutes=5)
DEDUPE_PATCH = "review-one-question-one-agent-v1"
LAYER_CONTINUES = "review-layer-continues-v1"
"""Patch: a layer agent's later pass continues its previous pass's conversation (read from
the prompt cache) instead of starting a new one that names every earlier finding again."""
BOUNDED_BY_DEPTH = "review-bounded-by-depth-v1"
"""Patch: at most the depth's reviewers in all, repeated dimensions merged or dropped,
investigations and deep dives asked once per (question, target), deep dives capped by
depth, and every agent within its share of the depth's token budget."""
EARLY_INVESTIGATIONS = "review-investigations-start-at-once-v1"
"""Patch: a reviewer may ask for an investigation mid-run (``request_investigation``); it
starts at once, beside the reviewer, at bounded concurrency."""


class ReviewFanOut:
    """Findings produced and judged so far; what synthesis receives at the end."""

    def __init__(self, run: ReviewRun, book: PhaseBook) -> None:
        self.run = run
        self.book = book
        self.kit = book.kit
        self.batches: list[str] = []
        self.verdicts: list[AdversaryVerdict] = []
        self.compounds: set[str] = set()
        self.rejected: list[str] = []
        self.examined: dict[str, list[str]] = {}
        self._inbox: list[str] = []
        self._producing = True
        self._deep_dives_left = MAX_DEEP_DIVES
        self._planned = 1
        self._asked: set[str] = set()
        self.repeated_questions = 0
        self._agents: dict[str, tuple[Dimension, str]] = {}
        self._investigations_asked: dict[str, int] = {}
        self._pending: list[asyncio.Future[None]] = []
        self._investigation_gate = asyncio.Semaphore(max(1, run.request.max_concurrency))
        self._last_pass: dict[LayerRole, AgentOutcome] = {}
        self._early = workflow.patched(EARLY_INVESTIGATIONS)
        if self._early:
            self.kit.on_agent_request = self._requested
        self._bounded = book.bounded
        self._limits = limits_for(run.request.depth, run.size)
        self._slots = self._limits.reviewers
        self._dive_cap = MAX_DEEP_DIVES
        if self._bounded:
            self._dive_cap = self._deep_dives_left = self._limits.deep_dives
        self._questions: set[str] = set()
        self._names: set[str] = set()
        self._targets: set[tuple[str, ...]] = set()
        self.not_started: list[str] = []
        """Why reviewers the model asked for did not start (repeats, the depth's bounds)."""

    async def review(self, dimensions: Sequence[Dimension]) -> None:
        """Reviewers and gap reviewers produce; the layer consumes until they are all done."""
        self._planned = len(dimensions)
        self.kit.set("reviewers", PhaseState.running, f"{len(dimensions)} reviewers")
        self.kit.set("review_layer", PhaseState.running, "waiting for findings")
        layer = asyncio.ensure_future(self._layer())
        await self.fan_out(dimensions, ReviewPhase.reviewers)
        while self._pending:  # investigations asked for mid-run, still running
            started, self._pending = self._pending, []
            await asyncio.gather(*started)
        self.book.show("reviewers", [ReviewPhase.reviewers, ReviewPhase.investigations])
        await self._coverage()
        self._producing = False
        await layer
        for note in self.not_started:
            self.book.remark(ReviewPhase.reviewers, note)
        self.book.show("review_layer", LAYER_PHASES)

    @property
    def examined_files(self) -> list[str]:
        return sorted({path for files in self.examined.values() for path in files})

    # ------------------------------------------------------------------ producers

    async def fan_out(
        self,
        dimensions: Sequence[Dimension],
        phase: str,
        fractions: Sequence[float] | None = None,
    ) -> None:
        """The one reviewer definition once per dimension, as child agents; each one's
        findings are checked and streamed to the layer the moment it finishes (a deep
        dive's are compound risks: they go straight to synthesis). A dimension asking
        what an earlier one of the run asked is dropped before it becomes an agent."""
        if workflow.patched(DEDUPE_PATCH):
            fresh, repeats = new_questions(dimensions, self._asked)
            if fractions is not None:
                keep = {id(d) for d in fresh}
                fractions = [f for d, f in zip(dimensions, fractions, strict=True) if id(d) in keep]
            self._asked |= {question_key(d) for d in fresh}
            self.repeated_questions += len(repeats)
            dimensions = fresh
        if self._bounded:
            kept = self._within_bounds(dimensions, phase)
            if fractions is not None:
                keep = {id(d) for d in kept}
                fractions = [f for d, f in zip(dimensions, fractions, strict=True) if id(d) in keep]
            dimensions = kept
        if not dimensions:
            return
        run = self.run
        prompts: list[PreparedPrompt] = await self.kit.step(
            STEP[phase],
            review_reviewer_prompts,
            ReviewerPromptsInput(
                facts_key=run.facts.facts_key,
                review_range=run.scope.review_range,
                dimensions=list(dimensions),
                intake=run.intake,
                semantic=run.semantic,
                range_note=f"Reviewing {run.scope.note}." if run.scope.incremental else "",
            ),
            timeout=TIMEOUT,
        )
        shares = fractions or priority_weights([d.priority for d in dimensions])
        by_name: dict[str, Dimension] = {}
        specs = []
        asks_early = self._early and phase == ReviewPhase.reviewers
        for dimension, prompt, share in zip(dimensions, prompts, shares, strict=True):
            name = f"{phase}:{dimension.id}"
            by_name[name] = dimension
            self._agents[name] = (dimension, phase)
            focus = [*dimension.target_files, *dimension.context_files]
            specs.append(
                self.book.spec(
                    run.request,
                    prompt,
                    name=name,
                    phase=phase,
                    terminal=SUBMIT_FINDINGS.name,
                    backend=run.tools(focus, MAX_REFERENCE_HOPS),
                    fraction=share,
                    parent_tools=[REQUEST_INVESTIGATION.name] if asks_early else [],
                )
            )

        async def finished(outcome: AgentOutcome) -> None:
            await self._finished(by_name[outcome.name], phase, outcome)

        await self.kit.run_child_agents(
            specs, max_concurrency=run.request.max_concurrency, on_done=finished
        )

    def _within_bounds(self, dimensions: Sequence[Dimension], phase: str) -> list[Dimension]:
        """The dimensions that may become agents: planned and gap dimensions with a name or
        targets of their own, as many as the depth's reviewer slots have room for."""
        kept = list(dimensions)
        if phase in (ReviewPhase.reviewers, ReviewPhase.gap_reviewers):
            merged = merge_repeats(kept)
            kept = [d for d in merged if not repeats_of(d, self._names, self._targets)]
            if len(kept) < len(dimensions):
                self.not_started.append(
                    f"{phase}: {len(dimensions) - len(kept)} of {len(dimensions)} merged "
                    "or dropped (the name or target files of another)"
                )
            self._names |= {name_key(d.name) for d in kept}
            self._targets |= {targets_key(d.target_files) for d in kept}
        room = max(self._slots, 0)
        if len(kept) > room:
            depth = self.run.request.depth.value
            sized = " of this change" if self.run.size is not None else ""
            self.not_started.append(
                f"{phase}: {len(kept) - room} not started (a {depth} review{sized} runs at most "
                f"{self._limits.reviewers} reviewers)"
            )
            kept = kept[:room]
        self._slots -= len(kept)
        return kept

    def _new_asks(
        self, requests: Sequence[InvestigationRequest], default_files: Sequence[str]
    ) -> list[InvestigationRequest]:
        """``requests`` whose (question, target files) nobody of the run asked before."""
        fresh: list[InvestigationRequest] = []
        for request in requests:
            key = investigation_key(request.question, request.files or default_files)
            if key in self._questions:
                self.repeated_questions += 1
                continue
            self._questions.add(key)
            fresh.append(request)
        return fresh

    async def _finished(self, dimension: Dimension, phase: str, outcome: AgentOutcome) -> None:
        self.book.note(phase, outcome)
        batch: FindingBatch = await self.kit.step(
            STEP[phase],
            review_ingest_findings,
            IngestInput(
                submitted=outcome.terminal_input,
                dimension=dimension,
                range=self.run.scope.review_range,
                pr_base_sha=self.run.range.merge_base_sha,
            ),
            timeout=TIMEOUT,
            summary=f"check the findings of {outcome.name}",
        )
        deep_dive = phase == ReviewPhase.deep_dives
        self._accept(batch, stream=not deep_dive)
        if deep_dive:
            self.compounds |= set(batch.fingerprints)
        if outcome.completed:
            self.examined.setdefault(dimension.name, []).extend(dimension.target_files)
        if batch.investigations and phase == ReviewPhase.reviewers:
            asked = self._investigations_asked.get(outcome.name, 0)
            if self._early:
                self._investigations_asked[outcome.name] = asked + len(batch.investigations)
            await self._investigate(dimension, batch.investigations, first=asked + 1)

    def _requested(self, request: AgentRequest) -> None:
        """A reviewer asked for an investigation mid-run: start it now (at most two per
        reviewer, the concurrency bounded), not when the reviewer finishes."""
        known = self._agents.get(request.agent)
        if request.tool != REQUEST_INVESTIGATION.name or known is None:
            return
        dimension, phase = known
        asked = self._investigations_asked.get(request.agent, 0)
        items = parse_investigations([request.input])
        if phase != ReviewPhase.reviewers or not items or asked >= MAX_INVESTIGATIONS:
            return
        self._investigations_asked[request.agent] = asked + 1
        self._pending.append(
            asyncio.ensure_future(self._investigate(dimension, items, first=asked + 1))
        )

    def _accept(self, batch: FindingBatch, *, stream: bool) -> None:
        self.rejected += batch.rejected
        if batch.count:
            self.batches.append(batch.key)
            if stream:
                self._inbox.append(batch.key)

    async def _investigate(
        self, parent: Dimension, requests: Sequence[InvestigationRequest], first: int = 1
    ) -> None:
        """A reviewer's deeper looks (at most two), run as the same reviewer."""
        allowed = max(MAX_INVESTIGATIONS - (first - 1), 0)
        asked = list(requests[:allowed])
        if self._bounded:
            asked = self._new_asks(asked, parent.target_files)
        dimensions = [
            investigation_dimension(parent, item, number)
            for number, item in enumerate(asked, first)
        ]
        if not dimensions:
            return
        fraction = 1.0 / (MAX_INVESTIGATIONS * max(self._planned, 1))
        if not self._early:
            await self.fan_out(
                dimensions, ReviewPhase.investigations, fractions=[fraction] * len(dimensions)
            )
            return
        async with self._investigation_gate:
            await self.fan_out(
                dimensions, ReviewPhase.investigations, fractions=[fraction] * len(dimensions)
            )

    async def _coverage(self) -> None:
        """The outer loop: the gate names gaps, gap reviewers cover them; at most twice."""
        run = self.run
        for iteration in range(1, MAX_COVERAGE_ITERATIONS + 1):
            if self.book.cut(ReviewPhase.coverage):
                return
            outcome = await self.book.ask(
                run,
                step="review_layer",
                phase=ReviewPhase.coverage,
                name=f"coverage:{iteration}",
                prepare=review_coverage_prompt,
                prompt_input=CoverageInput(
                    facts_key=run.facts.facts_key,
                    structure_key=run.facts.structure_key,
                    pr_type=run.intake.pr_type,
                    examined_by=self.examined,
                ),
                terminal=SUBMIT_COVERAGE.name,
                after_spend=True,
            )
            gaps: list[Dimension] = await self.kit.step(
                "review_layer",
                review_gap_dimensions,
                GapInput(
                    facts_key=run.facts.facts_key,
                    submitted=outcome.terminal_input,
                    iteration=iteration,
                ),
                timeout=TIMEOUT,
            )
            if not gaps:
                return
            await self.fan_out(gaps, ReviewPhase.gap_reviewers)

    # ------------------------------------------------------------------ the layer

    async def _layer(self) -> None:
        """Adversary and cross-reference passes over the findings that arrived since the
        last pass, while reviewers still run."""
        passes = 0
        seen: list[str] = []
        while True:
            await workflow.wait_condition(lambda: bool(self._inbox) or not self._producing)
            if passes == MAX_LAYER_PASSES - 1:
                await workflow.wait_condition(lambda: not self._producing)
            if not self._inbox:
                return
            passes += 1
            new, self._inbox = self._inbox, []
            self.kit.set("review_layer", PhaseState.running, f"pass {passes}")
            await asyncio.gather(
                self._pass(LayerRole.adversary, new, seen, passes),
                self._pass(LayerRole.cross_ref, new, seen, passes),
            )
            seen = [*seen, *new]

    async def _pass(self, role: LayerRole, new: list[str], earlier: list[str], number: int) -> None:
        run = self.run
        phase = ReviewPhase.adversary if role == LayerRole.adversary else ReviewPhase.cross_ref
        if self.book.cut(phase):
            return  # cut earlier: the rest stays unjudged, and the report says so
        if run.request.plans[phase].caps.usd - self.book.spent(phase).usd < MIN_PASS_USD:
            self.book.stop(phase, f"cut: budget spent before pass {number}")
            return
        continues = workflow.patched(LAYER_CONTINUES)
        outcome = await self.book.ask(
            run,
            step="review_layer",
            phase=phase,
            name=f"{phase}:{number}",
            prepare=review_layer_prompt,
            prompt_input=LayerPromptInput(
                role=role,
                new_keys=new,
                earlier_keys=earlier,
                title=run.facts.title,
                hints=run.hints,
                ai_generated=run.intake.ai_generated,
                deep_dives_left=self._dives_open(),
                range=run.scope.review_range,
                continue_from=self._continuation(role, phase, number) if continues else None,
            ),
            terminal=TOOL_OF[role].name,
            backend=run.tools(),
            child=True,
            after_spend=True,
            rest_share=1.0 if number >= MAX_LAYER_PASSES else LAYER_PASS_SHARE,
        )
        if continues:
            self._last_pass[role] = outcome
        batch: LayerBatch = await self.kit.step(
            "review_layer",
            review_ingest_layer,
            LayerIngestInput(
                role=role,
                submitted=outcome.terminal_input,
                new_keys=new,
                earlier_keys=earlier,
                range=run.scope.review_range,
                pr_base_sha=run.range.merge_base_sha,
            ),
            timeout=TIMEOUT,
        )
        self.verdicts += batch.verdicts
        self.compounds |= set(batch.compound_fingerprints)
        self.rejected += batch.rejected
        if batch.findings is not None:
            self._accept(batch.findings, stream=False)
        if batch.deep_dives and self._deep_dives_left > 0:
            await self._deep_dive(batch.deep_dives)

    def _dives_open(self) -> int:
        """The deep dives the resolver is told it may still ask for: bounded reviews start
        one only while a reviewer slot is free too."""
        if not self._bounded:
            return self._deep_dives_left
        return min(self._deep_dives_left, max(self._slots, 0))

    def _continuation(self, role: LayerRole, phase: str, number: int) -> LayerContinuation | None:
        """The previous pass of ``role`` to continue: only one that ended by submitting, and
        (bounded reviews) only while it leaves pass ``number`` room to judge within its share."""
        last = self._last_pass.get(role)
        if last is None or last.stop != StopReason.terminal_tool:
            return None
        max_chars = None
        if self._bounded:
            left = self.run.request.plans[phase].caps.tokens - self.book.spent(phase).tokens
            share = 1.0 if number >= MAX_LAYER_PASSES else LAYER_PASS_SHARE
            max_chars = continued_chars(pass_tokens(max(left, 0), share))
        return LayerContinuation(
            transcript_key=last.transcript_key,
            transcript=last.transcript,
            terminal_tool=TOOL_OF[role].name,
            max_chars=max_chars,
        )

    async def _deep_dive(self, dives: Sequence[InvestigationRequest]) -> None:
        """The resolver's deep dives (at most five per review), as the one reviewer."""
        if self._bounded:
            dives = self._new_asks([d for d in dives if d.files], [])
        allowed = list(dives[: self._deep_dives_left])
        start = self._dive_cap - self._deep_dives_left
        self._deep_dives_left -= len(allowed)
        dimension_id, dimension_name = CROSS_REF_DIMENSION
        resolver = Dimension(id=dimension_id, name=dimension_name, prompt="", target_files=[])
        dimensions = [
            investigation_dimension(resolver, item, start + number, FindingSource.cross_ref)
            for number, item in enumerate(allowed, 1)
            if item.files
        ]
        await self.fan_out(
            dimensions,
            ReviewPhase.deep_dives,
            fractions=[1.0 / self._dive_cap] * len(dimensions),
        )
