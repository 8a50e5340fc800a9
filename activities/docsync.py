"""Activities of the docsync workflow: find the affected docs, build the audit report.

They read commit snapshots and the impact stage's stored findings, call the
pure code in :mod:`prflow.docsync` and store what it returns as blobs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from temporalio import activity

from activities.agent_messages import prepare_prompt
from activities.heartbeats import heartbeating
from activities.impact_analysis import small_outputs
from prflow.agent.messages import AgentPrompt
from prflow.changes import ChangedFile
from prflow.config import cached_settings
from prflow.docsync.agent import FINISH_TOOL, doc_message, system_prompt
from prflow.docsync.doc_index import DocGlobs
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.models import Bucket, DocFindings
from prflow.docsync.report import DocEdit, DocsyncReport, render_comment, render_markdown
from prflow.docsync.run_models import (
    AGENT_PHASE,
    WORKFLOW_KIND,
    CollectInput,
    CollectResult,
    DocPrompt,
    DocToEdit,
    FindInput,
    FindSummary,
    PromptsInput,
    ReportInput,
    ReportRefs,
)
from prflow.docsync.targets import find_targets
from prflow.git.repo import GitRepoReader
from prflow.impact.stage_inputs import StaticFindings
from prflow.store.blobs import get_json, get_text, put_json, put_text
from prflow.store.edit_ledger import LedgerEdit, record_edits
from prflow.workspace.merge import merge_states
from prflow.workspace.models import PatchLogEntry, WorkspaceRef, WorkspaceState
from prflow.workspace.patches import file_diff
from prflow.workspace.tools import EDIT_FILE, READ_TOOLS, WORKSPACE_TOOL_SPECS

DIFF_CHARS = 12_000
"""The change's diff shown to a doc agent, at most (of the files its evidence names)."""


def _db() -> str:
    return cached_settings().resolved_database_url()


@activity.defn(name="docsync_find")
@heartbeating
def find_docs(inp: FindInput) -> FindSummary:
    """Targets from impact's static findings and the diff, then the affected docs."""
    db = _db()
    changed = [ChangedFile.model_validate(item) for item in get_json(db, inp.changes_key)]
    static = StaticFindings.model_validate(get_json(db, inp.static_key))
    reader = GitRepoReader.for_range(inp.range)
    base = reader.tree(inp.range.merge_base_sha)
    head = reader.tree(inp.range.head_sha)
    targets = find_targets(changed, static.breaking_changes, base, head)
    activity.heartbeat("docs")
    changed_paths = [c.path for c in changed] + [c.old_path for c in changed if c.old_path]
    findings = find_affected_docs(
        targets,
        head,
        changed_paths=changed_paths,
        globs=DocGlobs(inp.docs or None),
        thresholds=inp.thresholds,
    )
    return FindSummary(
        findings_key=put_json(db, findings.model_dump(mode="json")),
        docs_scanned=findings.docs_scanned,
        counts={b.value: len(findings.in_bucket(b)) for b in Bucket},
        to_edit=[
            DocToEdit(path=d.path, bucket=d.bucket, score=d.score) for d in findings.to_edit()
        ],
        targets=len(targets),
    )


def doc_tools(edit_tool: str = EDIT_FILE) -> list[Any]:
    """Workspace reads (head plus the doc's edits), the edit tool, and ``finish_doc``."""
    wanted = {*READ_TOOLS, edit_tool}
    return [*(t for t in WORKSPACE_TOOL_SPECS if t.name in wanted), FINISH_TOOL]


@activity.defn(name="docsync_prompts")
@heartbeating
def doc_prompts(inp: PromptsInput) -> list[DocPrompt]:
    """Store each doc agent's prompt: the doc, its evidence, the targets and their diff."""
    db = _db()
    findings = DocFindings.model_validate(get_json(db, inp.findings_key))
    by_path = {doc.path: doc for doc in findings.docs}
    reader = GitRepoReader.for_range(inp.range)
    rng = inp.range
    system = system_prompt(inp.edit_tool)
    tools = doc_tools(inp.edit_tool)
    prompts: list[DocPrompt] = []
    for path in inp.docs:
        doc = by_path[path]
        raw = reader.read_file(rng.head_sha, path) or b""
        named = {e.target for e in doc.evidence}
        sources = sorted(
            {t.source for t in findings.targets if t.source and t.name in named}
            | {t.name for t in findings.targets if t.kind.value == "path" and t.name in named}
        )
        diff = reader.diff(rng.merge_base_sha, rng.head_sha, sources) if sources else ""
        message = doc_message(
            doc,
            raw.decode("utf-8", errors="replace"),
            findings.targets,
            base=rng.base_ref,
            head=rng.head_ref,
        )
        if diff:
            shown = diff[:DIFF_CHARS]
            cut = "" if len(diff) <= DIFF_CHARS else "\n[diff cut; read the files for more]"
            message += f"\n\n## The change in the code it names\n\n```diff\n{shown}{cut}\n```"
        prompt = AgentPrompt(system=system, tools=tools, first_message=message)
        prompts.append(DocPrompt(path=path, prompt=prepare_prompt(db, prompt)))
        activity.heartbeat(path)
    return prompts


def _log_keys(db: str, ref: WorkspaceRef) -> list[str]:
    batches: list[list[str]] = []
    key = ref.patch_log_key
    while key is not None:
        entry = PatchLogEntry.model_validate(get_json(db, key))
        batches.append(entry.patch_keys)
        key = entry.previous
    return [k for batch in reversed(batches) for k in batch]


@activity.defn(name="docsync_collect")
@heartbeating
def collect_edits(inp: CollectInput) -> CollectResult:
    """The patch records each doc's agent left, oldest first, and one workspace with every
    doc's final text (agents edit disjoint docs, so their states merge without conflict)."""
    db = _db()
    keys = {
        path: _log_keys(db, ref) if ref is not None else [] for path, ref in inp.workspaces.items()
    }
    branches: list[dict[str, str | None]] = []
    for path, ref in sorted(inp.workspaces.items()):
        if ref is None or ref.state_key is None or not keys[path]:
            continue
        state = WorkspaceState.model_validate(get_json(db, ref.state_key))
        if path in state.files:
            branches.append({path: state.files[path]})  # each agent may edit only its doc
    merged, _conflicts = merge_states({}, branches)  # disjoint docs: never a conflict
    combined = None
    if inp.start is not None and merged:
        combined = inp.start.model_copy(
            update={
                "state_key": put_json(db, WorkspaceState(files=merged).model_dump(mode="json")),
                "patch_log_key": None,
                "revision": len(merged),
            }
        )
    return CollectResult(patch_keys=keys, combined=combined)


def _combined_diff(
    db: str, rng_head: str, reader: GitRepoReader, refs: dict[str, WorkspaceRef]
) -> str:
    """One diff per edited doc, head to the agent's final text (what --apply writes)."""
    parts: list[str] = []
    for path, ref in sorted(refs.items()):
        if ref.state_key is None:
            continue
        state = WorkspaceState.model_validate(get_json(db, ref.state_key))
        key = state.files.get(path)
        if key is None:
            continue
        before = (reader.read_file(rng_head, path) or b"").decode("utf-8", errors="replace")
        parts.append(file_diff(path, path, before, get_text(db, key)))
    return "".join(p if p.endswith("\n") else p + "\n" for p in parts if p)


def load_edits(db: str, patch_keys: list[str]) -> list[DocEdit]:
    """The stored edit records, in the order they were made."""
    return [DocEdit.model_validate(get_json(db, key)) for key in patch_keys]


@activity.defn(name="docsync_report")
@heartbeating
def build_report(inp: ReportInput) -> ReportRefs:
    """The audit report as JSON, Markdown, a PR comment and one combined patch."""
    db = _db()
    findings = DocFindings.model_validate(get_json(db, inp.findings_key))
    keys = [key for o in inp.outcomes for key in o.patch_keys]
    edits = load_edits(db, keys)
    record_edits(
        db,
        [
            LedgerEdit(
                workflow_id=inp.workflow_id,
                workflow_kind=WORKFLOW_KIND,
                phase=AGENT_PHASE,
                path=edit.path,
                edit_index=edit.edit_index,
                actor=edit.actor,
                reason=edit.reason,
                patch_key=key,
            )
            for key, edit in zip(keys, edits, strict=True)
        ],
    )
    rng = inp.range
    report = DocsyncReport(
        workflow_id=inp.workflow_id,
        repo=rng.location,
        base_ref=rng.base_ref,
        head_ref=rng.head_ref,
        base_sha=rng.merge_base_sha,
        head_sha=rng.head_sha,
        thresholds=findings.thresholds,
        docs_scanned=findings.docs_scanned,
        targets=findings.targets,
        docs=findings.docs,
        outcomes=inp.outcomes,
        edits=edits,
        edits_skipped=inp.edits_skipped,
        applied=inp.applied,
        apply_message=inp.apply_message,
        branch=inp.branch,
        pr_url=inp.pr_url,
    )
    outputs = {
        "json": report.model_dump_json(indent=2),
        "md": render_markdown(report),
    }
    comment = render_comment(report)
    reader = GitRepoReader.for_range(rng)
    diff = _combined_diff(db, rng.head_sha, reader, inp.workspaces)
    return ReportRefs(
        report_key=put_text(db, outputs["json"]),
        markdown_key=put_text(db, outputs["md"]),
        comment_key=put_text(db, comment),
        patch_key=put_text(db, diff) if diff else None,
        edits=len(edits),
        inline=small_outputs(outputs),
    )


DOCSYNC_ACTIVITIES: list[Callable[..., Any]] = [find_docs, doc_prompts, collect_edits, build_report]
