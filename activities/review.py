"""Activities of the review workflow: read commit snapshots, prepare prompts, check findings,
synthesise and render.

Each activity loads what it needs from the blob store and the per-SHA
snapshots, calls the pure functions of ``prflow/review`` and stores what it
produced, returning keys and small typed values to the workflow.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from temporalio import activity
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from activities.agent_messages import prepare_prompt
from activities.heartbeats import heartbeating
from activities.impact_analysis import small_outputs
from activities.layer_context import code_of, continued
from prflow import __version__
from prflow.agent.messages import AgentPrompt, PreparedPrompt
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.config import cached_settings
from prflow.git.repo import GitError, GitRepoReader, repo_for_range, run_git
from prflow.impact.evidence import CitedText, Unreadable, cited_text
from prflow.impact.scoring import assess_risk
from prflow.impact.stage_inputs import StaticFindings
from prflow.llm.messages import ToolSpec
from prflow.pr_identifier import PullRequestRef
from prflow.repo_models import ResolvedRange
from prflow.review.agents.anatomy_reader import (
    SUBMIT_ANATOMY,
    anatomy_message,
    largest_source,
)
from prflow.review.agents.coverage import (
    SUBMIT_COVERAGE,
    coverage_message,
    parse_gaps,
    uncovered_files,
)
from prflow.review.agents.intake import SUBMIT_INTAKE, code_intake, intake_message
from prflow.review.agents.layer import (
    TOOL_OF,
    LayerRole,
    layer_followup,
    layer_message,
    layer_system,
    parse_layer,
)
from prflow.review.agents.planner import (
    finalize_plan,
    planner_message,
    planner_system,
    submit_plan_tool,
)
from prflow.review.agents.prompts import load_prompt
from prflow.review.agents.reviewer import (
    HUNK_CONTEXT_LINES,
    REQUEST_INVESTIGATION,
    SUBMIT_FINDINGS,
    parse_report,
    reviewer_message,
    shared_context,
)
from prflow.review.anatomy import DiffStructure, build_structure
from prflow.review.depth_limits import review_size
from prflow.review.diff_map import DiffIndex
from prflow.review.evidence import verified
from prflow.review.github_diff import placement_index
from prflow.review.import_names import (
    declared_dependencies,
    imported_modules,
    is_manifest,
    local_modules,
    unresolved_imports,
)
from prflow.review.models import DiffSide, Dimension, ReviewFinding, ReviewPlan
from prflow.review.pull_patches import files_from_json
from prflow.review.questions import once_each
from prflow.review.render.github_review import inline_cap_note, review_payload
from prflow.review.render.markdown import render_review_markdown
from prflow.review.render.sarif import render_review_sarif
from prflow.review.render.summary import ReviewState, summary_comment
from prflow.review.report import ReviewReport, StructureSummary
from prflow.review.reviewable import HEADER_CHARS, NotReviewed, SkipReason, exclusion
from prflow.review.signals import AddedCode, ai_likelihood
from prflow.review.stage_models import (
    AgentPromptInput,
    CoverageInput,
    FactsInput,
    FactsRefs,
    FindingBatch,
    GapInput,
    IngestInput,
    LayerBatch,
    LayerIngestInput,
    LayerPromptInput,
    MarksInput,
    PlanInput,
    ReviewerPromptsInput,
    ReviewFacts,
    ReviewScope,
    ScopeInput,
    StoredMarks,
    SynthesisInput,
    SynthesisRefs,
)
from prflow.review.static_findings import static_review
from prflow.review.synthesis import SynthesisInputs, synthesize
from prflow.store.blobs import get_json, put_json, put_text
from prflow.store.finding_verdicts import verdicts_of
from prflow.store.review_marks import last_review, record_review
from prflow.tools.git_diff import GitDiffArgs, git_diff
from prflow.tools.reader import ToolError
from prflow.tools.registry import TOOL_SPECS

MAX_MANIFESTS = 20
MAX_COMMIT_SUBJECTS = 50


def _db() -> str:
    return cached_settings().resolved_database_url()


def _facts(key: str) -> ReviewFacts:
    return ReviewFacts.model_validate(get_json(_db(), key))


def _structure(key: str) -> DiffStructure:
    return DiffStructure.model_validate(get_json(_db(), key))


def _prompt(system: str, tools: list[ToolSpec], message: str) -> PreparedPrompt:
    return prepare_prompt(_db(), AgentPrompt(system=system, tools=tools, first_message=message))


# ---------------------------------------------------------------- scope and facts


def _is_ancestor(reader: GitRepoReader, older: str, newer: str) -> bool:
    done = run_git(
        ["merge-base", "--is-ancestor", older, newer], git_dir=reader.repo.git_dir, ok_codes=(0, 1)
    )
    return done.returncode == 0


@activity.defn(name="review_scope")
@heartbeating
def review_scope(inp: ScopeInput) -> ReviewScope:
    """The whole PR, or only the commits after the head the last review covered."""
    rng, last = inp.range, inp.last_head_sha
    if last is None or last == rng.merge_base_sha:
        return ReviewScope(review_range=rng)
    if last == rng.head_sha:
        return ReviewScope(
            review_range=rng, nothing_new=True, note=f"{last[:12]} was already reviewed"
        )
    reader = GitRepoReader.for_range(rng)
    known = reader.resolve_commit(last) is not None
    if not known or not _is_ancestor(reader, last, rng.head_sha):
        return ReviewScope(
            review_range=rng,
            note=f"the branch was rewritten since the review of {last[:12]}; reviewing it all",
        )
    if not _is_ancestor(reader, rng.merge_base_sha, last):
        return ReviewScope(review_range=rng, note="the base moved; reviewing the whole PR")
    since = rng.model_copy(update={"base_ref": last[:12], "base_sha": last, "merge_base_sha": last})
    return ReviewScope(
        review_range=since,
        incremental=True,
        note=f"only the commits after {last[:12]}, reviewed earlier",
    )


def _changed(key: str) -> list[ChangedFile]:
    return [ChangedFile.model_validate(item) for item in get_json(_db(), key)]


def _head_start(reader: GitRepoReader, sha: str, file: ChangedFile) -> str | None:
    if file.status == FileStatus.deleted or file.binary:
        return None
    try:
        data = reader.read_file(sha, file.path)
    except (ToolError, OSError):
        return None
    return data[:HEADER_CHARS].decode("utf-8", errors="replace") if data else None


def _added_lines(patch_text: str) -> dict[str, list[str]]:
    try:
        patch = PatchSet(patch_text)
    except UnidiffParseError:
        return {}
    added: dict[str, list[str]] = {}
    for patched in patch:
        path = str(patched.path)
        added[path] = [
            line.value.rstrip("\r\n") for hunk in patched for line in hunk if line.is_added
        ]
    return added


def _commit_subjects(rng: ResolvedRange) -> list[str]:
    try:
        done = run_git(
            ["log", "--reverse", "--format=%s", f"{rng.merge_base_sha}..{rng.head_sha}"],
            git_dir=repo_for_range(rng).git_dir,
        )
    except GitError:
        return []
    subjects = done.stdout.decode("utf-8", errors="replace").splitlines()
    return subjects[:MAX_COMMIT_SUBJECTS]


def _ai_signals(
    reader: GitRepoReader, rng: ResolvedRange, scope_files: list[ChangedFile], patch_text: str
) -> tuple[float, list[Any]]:
    from prflow.review.anatomy import language_of

    added = _added_lines(patch_text)
    files = [
        AddedCode(path=f.path, lines=added.get(f.path, []), is_test=f.category == FileCategory.test)
        for f in scope_files
        if not f.binary
    ]
    imports: list[str] = []
    for code in files:
        if not code.is_test:
            imports += imported_modules(code.lines, language_of(code.path))
    paths = reader.list_files(rng.head_sha)
    manifests: dict[str, str] = {}
    for path in [p for p in paths if is_manifest(p)][:MAX_MANIFESTS]:
        data = reader.read_file(rng.head_sha, path)
        if data:
            manifests[path] = data.decode("utf-8", errors="replace")
    missing = unresolved_imports(imports, local_modules(paths), declared_dependencies(manifests))
    return ai_likelihood(files, list(dict.fromkeys(imports)), missing)


@activity.defn(name="review_facts")
@heartbeating
def review_facts(inp: FactsInput) -> FactsRefs:
    """The computed anatomy (structure, clusters, blast radius), which files reviewers may
    read and which not (and why), code signals and the code-only classification."""
    db, rng, scope = _db(), inp.range, inp.scope
    changed = _changed(inp.changes.files_key)
    static = StaticFindings.model_validate(get_json(db, inp.static_key))
    reader = GitRepoReader.for_range(rng)
    full_patch = reader.diff(rng.merge_base_sha, rng.head_sha)
    hunks = {
        path: len(lines.hunks) for path, lines in DiffIndex.from_patch(full_patch).files.items()
    }
    activity.heartbeat("import graph")
    structure = build_structure(
        changed, hunks, reader.import_graph(rng.head_sha), static.impact_graph
    )
    in_scope = changed
    scope_patch = full_patch
    if scope.incremental:
        newer = {
            f.path for f in reader.changed_files(scope.review_range.merge_base_sha, rng.head_sha)
        }
        in_scope = [f for f in changed if f.path in newer]
        scope_patch = reader.diff(scope.review_range.merge_base_sha, rng.head_sha)
    not_reviewed: list[NotReviewed] = []
    reviewable: list[str] = []
    for file in in_scope:
        excluded = exclusion(file, _head_start(reader, rng.head_sha, file))
        if excluded is None:
            reviewable.append(file.path)
        else:
            not_reviewed.append(excluded)
    activity.heartbeat("signals")
    ai, signals = _ai_signals(reader, rng, in_scope, scope_patch)
    metadata = inp.metadata
    if not metadata.commits:
        metadata = metadata.model_copy(update={"commits": _commit_subjects(rng)})
    if not metadata.title and metadata.commits:
        metadata = metadata.model_copy(update={"title": metadata.commits[-1]})
    intake = code_intake(structure, metadata, ai, signals)
    facts = ReviewFacts(
        metadata=metadata,
        reviewable=reviewable,
        not_reviewed=[n.model_dump(mode="json") for n in not_reviewed],
        code_intake=intake,
        known_paths=reader.list_files(rng.head_sha),
        renamed_from={f.path: f.old_path for f in in_scope if f.old_path and f.old_path != f.path},
    )
    return FactsRefs(
        facts_key=put_json(db, facts.model_dump(mode="json")),
        structure_key=put_json(db, structure.model_dump(mode="json")),
        code_intake=intake,
        reviewable=len(reviewable),
        not_reviewed=len(not_reviewed),
        files=len(changed),
        clusters=len(structure.clusters),
        blast_radius=structure.blast_radius_total,
        high_blast_files=structure.high_blast_files(),
        title=metadata.title,
        size=review_size(structure, reviewable),
    )


# ---------------------------------------------------------------- prompts


@activity.defn(name="review_intake_prompt")
@heartbeating
def review_intake_prompt(inp: AgentPromptInput) -> PreparedPrompt:
    facts, structure = _facts(inp.facts_key), _structure(inp.structure_key)
    message = intake_message(facts.metadata, structure, facts.code_intake)
    if inp.escalation:
        return _prompt(load_prompt("intake_escalation"), [*TOOL_SPECS, SUBMIT_INTAKE], message)
    return _prompt(load_prompt("intake"), [SUBMIT_INTAKE], message)


@activity.defn(name="review_anatomy_prompt")
@heartbeating
def review_anatomy_prompt(inp: AgentPromptInput) -> PreparedPrompt:
    facts, structure = _facts(inp.facts_key), _structure(inp.structure_key)
    intake = inp.intake or facts.code_intake
    rng, diff = inp.review_range, None
    readable = [  # a change too large for reviewers still tells anatomy what the PR does
        *facts.reviewable,
        *(e["path"] for e in facts.not_reviewed if e.get("reason") == SkipReason.size),
    ]
    path = largest_source(structure, readable) if rng is not None else None
    if rng is not None and path is not None:
        page = git_diff(GitRepoReader.for_range(rng), rng, GitDiffArgs(file=path))
        diff = (path, page.to_text())
    message = anatomy_message(facts.metadata, structure, intake, diff)
    return _prompt(load_prompt("anatomy"), [*TOOL_SPECS, SUBMIT_ANATOMY], message)


@activity.defn(name="review_planning_prompt")
@heartbeating
def review_planning_prompt(inp: AgentPromptInput) -> PreparedPrompt:
    facts, structure = _facts(inp.facts_key), _structure(inp.structure_key)
    intake = inp.intake or facts.code_intake
    message = planner_message(
        facts.metadata.title,
        intake,
        structure,
        inp.semantic,
        facts.reviewable,
        [entry["path"] for entry in facts.not_reviewed],
    )
    system = planner_system(inp.depth, intake.ai_generated, inp.size)
    return _prompt(system, [*TOOL_SPECS, submit_plan_tool(inp.depth, inp.size)], message)


@activity.defn(name="review_finalize_plan")
@heartbeating
def review_finalize_plan(inp: PlanInput) -> ReviewPlan:
    facts, structure = _facts(inp.facts_key), _structure(inp.structure_key)
    return finalize_plan(
        inp.submitted,
        structure=structure,
        reviewable=facts.reviewable,
        known_paths=facts.known_paths,
        depth=inp.depth,
        intake=inp.intake,
        planner_problem=inp.planner_problem,
        size=inp.size,
    )


def _both_paths(facts: ReviewFacts, path: str) -> list[str]:
    old = facts.renamed_from.get(path)
    return [old, path] if old else [path]


@activity.defn(name="review_reviewer_prompts")
@heartbeating
def review_reviewer_prompts(inp: ReviewerPromptsInput) -> list[PreparedPrompt]:
    """One prompt per dimension: the one reviewer system prompt, the dimension's own message."""
    facts = _facts(inp.facts_key)
    rng = inp.review_range
    reader = GitRepoReader.for_range(rng)
    system = load_prompt("reviewer")
    tools = [*TOOL_SPECS, REQUEST_INVESTIGATION, SUBMIT_FINDINGS]
    note_parts = [f"Classified: {inp.intake.pr_type}, {inp.intake.complexity}."]
    if inp.semantic is not None and inp.semantic.narrative:
        note_parts.append(f"Narrative (model-written): {inp.semantic.narrative}")
    if inp.semantic is not None and inp.semantic.context_notes:
        note_parts.append(inp.semantic.context_notes)
    shared = shared_context(
        title=facts.metadata.title,
        context_note=" ".join(note_parts),
        range_note=inp.range_note,
        reviewable=facts.reviewable,
        not_reviewed=[entry["path"] for entry in facts.not_reviewed],
    )
    prepared: list[PreparedPrompt] = []
    for dimension in inp.dimensions:
        activity.heartbeat(dimension.id)
        diffs = {  # both paths of a rename, so git pairs them: the rename's diff, not a new file
            path: reader.diff(
                rng.merge_base_sha,
                rng.head_sha,
                [p for p in (facts.renamed_from.get(path), path) if p],
                context=HUNK_CONTEXT_LINES,
            )
            for path in dimension.target_files
            if path in facts.reviewable
        }
        message = reviewer_message(dimension, diffs=diffs)
        prepared.append(
            prepare_prompt(
                _db(),
                AgentPrompt(
                    system=system, tools=tools, first_message=message, shared_context=shared
                ),
            )
        )
    return prepared


# ---------------------------------------------------------------- findings


def _read_at(reader: GitRepoReader, sha: str, path: str) -> CitedText:
    try:
        return cited_text(reader.read_file(sha, path))
    except ToolError as refused:
        return Unreadable(f"was refused: {refused.message}")
    except OSError as err:
        return Unreadable(f"cannot be read ({err.strerror or err})")


def _check_one(
    reader: GitRepoReader, finding: ReviewFinding, rng: ResolvedRange, pr_base_sha: str
) -> ReviewFinding | str:
    """The finding checked at head, or at the PR's base for deleted lines; evidence quoted
    from the head an earlier review covered holds, but cannot be placed on the PR's lines."""
    if finding.side == DiffSide.right:
        return verified(finding, _read_at(reader, rng.head_sha, finding.file))
    outcome = verified(finding, _read_at(reader, pr_base_sha, finding.file))
    if isinstance(outcome, str) and rng.merge_base_sha != pr_base_sha:
        again = verified(finding, _read_at(reader, rng.merge_base_sha, finding.file))
        if not isinstance(again, str):
            return again.model_copy(update={"file_level": True})
    return outcome


def _check(
    findings: Iterable[ReviewFinding], rng: ResolvedRange, pr_base_sha: str
) -> tuple[list[ReviewFinding | None], list[str]]:
    """Each finding checked against the repository (None where it failed), and the reasons."""
    reader = GitRepoReader.for_range(rng)
    checked: list[ReviewFinding | None] = []
    rejected: list[str] = []
    for finding in findings:
        outcome = _check_one(reader, finding, rng, pr_base_sha)
        if isinstance(outcome, str):
            rejected.append(outcome)
            checked.append(None)
        else:
            checked.append(outcome)
    return checked, rejected


def _store_batch(findings: list[ReviewFinding], **extra: Any) -> FindingBatch:
    key = put_json(_db(), [f.model_dump(mode="json") for f in findings])
    return FindingBatch(
        key=key, count=len(findings), fingerprints=[f.fingerprint for f in findings], **extra
    )


def load_findings(keys: Iterable[str]) -> list[ReviewFinding]:
    db = _db()
    return [ReviewFinding.model_validate(item) for key in keys for item in get_json(db, key)]


@activity.defn(name="review_ingest_findings")
@heartbeating
def review_ingest_findings(inp: IngestInput) -> FindingBatch:
    """Check a reviewer's findings against the repository and store the survivors."""
    report = parse_report(inp.submitted, inp.dimension, inp.dimension.source)
    checked, rejected = _check(report.findings, inp.range, inp.pr_base_sha)
    return _store_batch(
        [f for f in checked if f is not None],
        investigations=report.investigations,
        rejected=[*report.problems, *rejected],
        examined=inp.dimension.target_files,
    )


@activity.defn(name="review_layer_prompt")
@heartbeating
def review_layer_prompt(inp: LayerPromptInput) -> PreparedPrompt:
    """A layer pass's prompt: the previous pass's conversation continued with the new
    findings when there is one to continue, else a first message; the adversary is shown
    the code its findings cite."""
    new = load_findings(inp.new_keys)
    code = code_of(new, inp.range) if inp.range and inp.role == LayerRole.adversary else {}
    system = layer_system(inp.role, inp.ai_generated)
    tools = [*TOOL_SPECS, TOOL_OF[inp.role]]
    if inp.continue_from is not None:
        followup = layer_followup(inp.role, new, deep_dives_left=inp.deep_dives_left, code=code)
        prompt = continued(_db(), inp.continue_from, _prompt(system, tools, followup), followup)
        if prompt is not None:
            return prompt
    message = layer_message(
        inp.role,
        new,
        load_findings(inp.earlier_keys),
        title=inp.title,
        hints=inp.hints,
        deep_dives_left=inp.deep_dives_left,
        code=code,
    )
    return _prompt(system, tools, message)


@activity.defn(name="review_ingest_layer")
@heartbeating
def review_ingest_layer(inp: LayerIngestInput) -> LayerBatch:
    """A layer pass's verdicts, compound risks or missed traps, checked and stored."""
    known = {f.fingerprint for f in load_findings([*inp.new_keys, *inp.earlier_keys])}
    report = parse_layer(inp.role, inp.submitted, known)
    checked, rejected = _check(report.findings, inp.range, inp.pr_base_sha)
    kept = [f for f in checked if f is not None]
    compounds: list[str] = []
    if inp.role == LayerRole.cross_ref:
        for finding, cited in zip(checked, report.compound_of, strict=True):
            if finding is not None:
                compounds += [*cited, finding.fingerprint]
    return LayerBatch(
        verdicts=report.verdicts,
        findings=_store_batch(kept) if kept else None,
        compound_fingerprints=sorted(set(compounds)),
        deep_dives=report.deep_dives,
        rejected=[*report.problems, *rejected],
    )


@activity.defn(name="review_coverage_prompt")
@heartbeating
def review_coverage_prompt(inp: CoverageInput) -> PreparedPrompt:
    facts, structure = _facts(inp.facts_key), _structure(inp.structure_key)
    examined = {path for files in inp.examined_by.values() for path in files}
    message = coverage_message(
        pr_type=inp.pr_type,
        structure=structure,
        examined_by=inp.examined_by,
        uncovered=uncovered_files(facts.reviewable, examined),
    )
    return _prompt(load_prompt("coverage"), [SUBMIT_COVERAGE], message)


@activity.defn(name="review_gap_dimensions")
@heartbeating
def review_gap_dimensions(inp: GapInput) -> list[Dimension]:
    return parse_gaps(inp.submitted, set(_facts(inp.facts_key).reviewable), inp.iteration)


# ---------------------------------------------------------------- synthesis and output


def _not_reviewed(facts: ReviewFacts, examined: set[str], used_model: bool) -> list[NotReviewed]:
    entries = [NotReviewed.model_validate(item) for item in facts.not_reviewed]
    for path in facts.reviewable:
        if not used_model:
            entries.append(NotReviewed(path=path, reason=SkipReason.static_mode))
        elif path not in examined:
            entries.append(NotReviewed(path=path, reason=SkipReason.budget))
    return entries


def _placement_diff(inp: SynthesisInput) -> tuple[DiffIndex, str]:
    """The diff findings are placed on: GitHub's own patches in a PR run, else the local
    diff (pinned git options); with a note when GitHub's alone did not decide."""
    rng = inp.range
    local = DiffIndex.from_patch(
        GitRepoReader.for_range(rng).diff(rng.merge_base_sha, rng.head_sha)
    )
    patches = inp.github_patches
    if patches is None:
        return local, ""
    files = files_from_json(get_json(_db(), patches.key))
    return placement_index(
        local, files, complete=patches.complete, head_moved=patches.head_sha != rng.head_sha
    )


def _judged_findings(db: str, pr: PullRequestRef | None) -> dict[str, str]:
    """Fingerprint → verdict (accepted, rebutted, fixed) of the PR's findings so far."""
    if pr is None:
        return {}
    return verdicts_of(db, f"{pr.owner}/{pr.repo}", pr.number)


@activity.defn(name="review_synthesize")
@heartbeating
def review_synthesize(inp: SynthesisInput) -> SynthesisRefs:
    """Score, merge, filter and place every finding; render every output."""
    db, rng = _db(), inp.range
    facts, structure = _facts(inp.facts_key), _structure(inp.structure_key)
    static = StaticFindings.model_validate(get_json(db, inp.static_key))
    static_part = static_review(static)
    findings = [*static_part.findings, *load_findings(inp.batch_keys)]
    diff, placement_note = _placement_diff(inp)
    complete = all(p.state.value != "failed" for p in inp.phases)
    may_approve = inp.used_model and complete and not inp.history.open_fingerprints
    judged = _judged_findings(db, inp.pull_request)
    result = synthesize(
        findings,
        SynthesisInputs(
            verdicts=inp.verdicts,
            compound_fingerprints=inp.compound_fingerprints,
            ai_generated=inp.intake.ai_generated,
            high_blast_files=structure.high_blast_files(),
            posted_fingerprints=inp.history.posted_fingerprints,
            resolved_fingerprints=inp.history.resolved_fingerprints,
            rebutted_fingerprints=sorted(f for f, v in judged.items() if v == "rebutted"),
            may_approve=may_approve,
        ),
        diff,
    )
    changes = inp.changes
    risk = assess_risk(
        breaking=static.breaking_changes,
        coverage=static.coverage,
        total_changed_lines=changes.totals.additions + changes.totals.deletions,
        stale_docs=len(static.stale_docs),
        config=static.config_changes,
        direct_importers=len(static.impact_graph.direct_importers),
    )
    report = ReviewReport(
        workflow_id=inp.workflow_id,
        repo=rng.location,
        pull_request=inp.pull_request,
        base_sha=rng.merge_base_sha,
        head_sha=rng.head_sha,
        reviewed_from_sha=inp.scope.review_range.merge_base_sha if inp.scope.incremental else None,
        scope_note=inp.scope.note,
        placement_note=placement_note,
        depth=inp.depth,
        event=result.event,
        complete=complete,
        used_model=inp.used_model,
        risk=risk,
        intake=inp.intake,
        structure=StructureSummary(
            stats=structure.stats,
            clusters=structure.clusters,
            blast_radius_total=structure.blast_radius_total,
            high_blast_files=structure.high_blast_files(),
        ),
        semantic=inp.semantic,
        plan=inp.plan,
        phases=inp.phases,
        findings=result.findings,
        earlier_findings=result.earlier,
        folded=[*static_part.folded, *inline_cap_note(result.findings)],
        suppressed=result.suppressed,
        conversation=dict(Counter(judged.values())),
        not_reviewed=_not_reviewed(facts, set(inp.examined), inp.used_model),
        rejected_findings=once_each(inp.rejected),
        cost_usd=inp.cost_usd,
    )
    payload = review_payload(report, inp.run_marker)
    posted = sorted({*inp.history.posted_fingerprints, *payload.fingerprints})
    outputs = {
        "json": report.model_dump_json(indent=2),
        "md": render_review_markdown(report),
        "sarif": json.dumps(render_review_sarif(report, __version__), indent=2),
    }
    by_severity: dict[str, int] = {}
    for finding in result.findings:
        by_severity[finding.severity.value] = by_severity.get(finding.severity.value, 0) + 1
    inline = sum(1 for c in payload.comments)
    return SynthesisRefs(
        event=result.event,
        findings=len(result.findings),
        inline_comments=inline,
        body_findings=len(result.findings) - inline,
        by_severity=by_severity,
        risk_score=risk.score,
        risk_level=risk.level.value,
        complete=complete,
        report_key=put_text(db, outputs["json"]),
        markdown_key=put_text(db, outputs["md"]),
        sarif_key=put_text(db, outputs["sarif"]),
        review_key=put_json(db, payload.model_dump(mode="json")),
        summary_key=put_text(
            db, summary_comment(report, ReviewState(head=rng.head_sha, posted=posted))
        ),
        fingerprints=posted,
        run_marker=inp.run_marker,
        inline=small_outputs(outputs),
    )


@activity.defn(name="review_read_marks")
@heartbeating
def review_read_marks(inp: MarksInput) -> StoredMarks:
    found = last_review(_db(), inp.repo, inp.pr_number)
    if found is None:
        return StoredMarks()
    return StoredMarks(head_sha=found[0], fingerprints=found[1])


@activity.defn(name="review_record_marks")
@heartbeating
def review_record_marks(inp: MarksInput) -> None:
    record_review(_db(), inp.repo, inp.pr_number, inp.head_sha, inp.fingerprints, inp.workflow_id)


REVIEW_ACTIVITIES: list[Callable[..., Any]] = [
    review_scope,
    review_facts,
    review_intake_prompt,
    review_anatomy_prompt,
    review_planning_prompt,
    review_finalize_plan,
    review_reviewer_prompts,
    review_ingest_findings,
    review_layer_prompt,
    review_ingest_layer,
    review_coverage_prompt,
    review_gap_dimensions,
    review_synthesize,
    review_read_marks,
    review_record_marks,
]
