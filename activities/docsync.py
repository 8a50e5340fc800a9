"""Activities of the docsync workflow: find the affected docs, build the audit report.

They read commit snapshots and the impact stage's stored findings, call the
pure code in :mod:`prflow.docsync` and store what it returns as blobs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from temporalio import activity

from activities.gitrepo import GitRepoReader
from activities.heartbeats import heartbeating
from activities.impact_analysis import small_outputs
from prflow.changes import ChangedFile
from prflow.config import cached_settings
from prflow.docsync.doc_index import DocGlobs
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.models import Bucket, DocFindings
from prflow.docsync.report import DocEdit, DocsyncReport, render_comment, render_markdown
from prflow.docsync.run_models import DocToEdit, FindInput, FindSummary, ReportInput, ReportRefs
from prflow.docsync.targets import find_targets
from prflow.impact.stage_inputs import StaticFindings
from prflow.store.blobs import get_json, put_json, put_text


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


def load_edits(db: str, patch_keys: list[str]) -> list[DocEdit]:
    """The stored edit records, in the order they were made."""
    return [DocEdit.model_validate(get_json(db, key)) for key in patch_keys]


@activity.defn(name="docsync_report")
@heartbeating
def build_report(inp: ReportInput) -> ReportRefs:
    """The audit report as JSON, Markdown, a PR comment and one combined patch."""
    db = _db()
    findings = DocFindings.model_validate(get_json(db, inp.findings_key))
    edits = load_edits(db, [key for o in inp.outcomes for key in o.patch_keys])
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
    diff = report.combined_diff()
    return ReportRefs(
        report_key=put_text(db, outputs["json"]),
        markdown_key=put_text(db, outputs["md"]),
        comment_key=put_text(db, comment),
        patch_key=put_text(db, diff) if diff else None,
        edits=len(edits),
        inline=small_outputs(outputs),
    )


DOCSYNC_ACTIVITIES: list[Callable[..., Any]] = [find_docs, build_report]
