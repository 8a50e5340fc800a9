"""The doc sync report: buckets with evidence, then every edit with its patch and reason.

The same :class:`DocsyncReport` is the JSON output, the Markdown output, the
PR comment and what ``prflow docsync --show RUN`` prints. Text written by the
model (edit reasons, why a doc needs no change) is marked as such everywhere.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.docsync.models import (
    BUCKET_TITLES,
    AffectedDoc,
    Bucket,
    Evidence,
    EvidenceKind,
    Target,
    Thresholds,
)
from prflow.docsync.run_models import DOCSYNC_COMMENT_MARKER, DocOutcome, DocStatus

SCHEMA_VERSION = "1"
MODEL_MARK = "(model text)"
GITHUB_COMMENT_LIMIT = 65_536
_EVIDENCE_SHOWN = 3


class DocEdit(BaseModel):
    """One applied edit: its patch and the reason given for it (model text)."""

    path: str
    edit_index: int
    reason: str
    diff: str
    actor: str = ""
    reason_is_model_text: bool = True


class DocsyncReport(BaseModel):
    schema_version: str = SCHEMA_VERSION
    workflow_id: str
    repo: str
    base_ref: str
    head_ref: str
    base_sha: str
    head_sha: str
    thresholds: Thresholds
    docs_scanned: int
    targets: list[Target] = Field(default_factory=list)
    docs: list[AffectedDoc] = Field(default_factory=list)
    outcomes: list[DocOutcome] = Field(default_factory=list)
    edits: list[DocEdit] = Field(default_factory=list)
    edits_skipped: str | None = None
    applied: bool | None = None
    apply_message: str | None = None
    branch: str | None = None
    pr_url: str | None = None

    def counts(self) -> dict[str, int]:
        return {b.value: sum(1 for d in self.docs if d.bucket == b) for b in Bucket}

    def combined_diff(self) -> str:
        return "".join(e.diff if e.diff.endswith("\n") else e.diff + "\n" for e in self.edits)


def render_markdown(
    report: DocsyncReport, *, with_fine: bool = True, with_diffs: bool = True
) -> str:
    counts = report.counts()
    lines = [
        f"# Doc sync: `{report.base_ref}`..`{report.head_ref}`",
        "",
        f"Run `{report.workflow_id}` (audit trail: `prflow docsync --show '{report.workflow_id}'`)"
        f" · {report.base_sha[:12]}..{report.head_sha[:12]}",
        "",
        f"{report.docs_scanned} docs scanned · {counts['must_update']} must update · "
        f"{counts['review']} review · {counts['probably_fine']} probably fine · "
        f"{len(report.edits)} edits proposed",
        "",
    ]
    if report.edits_skipped:
        lines += [f"> Edits were skipped: {report.edits_skipped}.", ""]
    if report.apply_message:
        lines += [f"> {report.apply_message}", ""]
    if report.branch:
        lines += [f"> Edits committed on branch `{report.branch}`.", ""]
    if report.pr_url:
        lines += [f"> Follow-up PR: {report.pr_url}", ""]
    for bucket in Bucket:
        docs = [d for d in report.docs if d.bucket == bucket]
        if not docs or (bucket == Bucket.probably_fine and not with_fine):
            continue
        lines += [f"## {BUCKET_TITLES[bucket]} ({len(docs)})", "", "| Doc | Score | Why |"]
        lines.append("|---|---|---|")
        for doc in docs:
            why = "<br>".join(_evidence(e) for e in doc.evidence[:_EVIDENCE_SHOWN])
            more = len(doc.evidence) - _EVIDENCE_SHOWN
            if more > 0:
                why += f"<br>… {more} more"
            lines.append(f"| `{doc.path}` | {doc.score:.2f} | {why} |")
        lines.append("")
    if report.outcomes:
        lines += ["## Edits", ""]
        for outcome in report.outcomes:
            lines += _outcome(outcome, report.edits, with_diffs)
    return "\n".join(lines).rstrip() + "\n"


def render_comment(report: DocsyncReport, *, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """The marker plus the report; docs probably fine, then patches go first when too long."""
    for with_fine, with_diffs in ((True, True), (False, True), (False, False)):
        body = render_markdown(report, with_fine=with_fine, with_diffs=with_diffs)
        comment = f"{DOCSYNC_COMMENT_MARKER}\n{body.replace(DOCSYNC_COMMENT_MARKER, '')}"
        if len(comment) <= limit:
            return comment
    note = "\n\n_Cut to fit GitHub's comment size limit; see `prflow docsync --show`._\n"
    return comment[: limit - len(note)] + note


def _evidence(item: Evidence) -> str:
    excerpt = _cell(item.excerpt)
    if item.kind == EvidenceKind.link:
        return f"links to `{item.via}`"
    if item.kind == EvidenceKind.front_matter:
        return f"line {item.line}: front matter maps it to `{item.target}`"
    change = f", {item.change.value}" if item.change else ""
    kind = item.target_kind.value.replace("_", " ") if item.target_kind else "target"
    return f"line {item.line}: {kind} `{_cell(item.target)}`{change}{seen_text(item)}: {excerpt}"


def seen_text(item: Evidence) -> str:
    """`` (changed parameter `timeout`)``: what the line passes, lacks or names that changed;
    `` (attribute of the result; return type `dict` -> `Response`)``: how it uses a result
    whose type changed."""
    said = ""
    if item.seen:
        names = ", ".join(f"`{_cell(name)}`" for name in item.seen)
        said = f" (changed parameter{'s' if len(item.seen) > 1 else ''} {names})"
    if item.returns:
        said += f" ({_cell(item.returns)})"
    return said


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _outcome(outcome: DocOutcome, edits: list[DocEdit], with_diffs: bool) -> list[str]:
    mark = f" _{MODEL_MARK}_" if outcome.model_text else ""
    if outcome.status != DocStatus.edited:
        title = {
            DocStatus.unchanged: "no change needed",
            DocStatus.skipped: "skipped",
            DocStatus.failed: "not finished",
        }[outcome.status]
        reason = outcome.reason.strip() or "no reason given"
        return [f"### `{outcome.path}`: {title}", "", f"> {_quote(reason)}{mark}", ""]
    own = [e for e in edits if e.path == outcome.path]
    lines = [f"### `{outcome.path}`: {len(own)} edit{'s' if len(own) != 1 else ''}", ""]
    for edit in own:
        lines.append(f"{edit.edit_index + 1}. Reason{mark}: {_quote(edit.reason)}")
        if with_diffs:
            lines += ["", "```diff", edit.diff.rstrip("\n"), "```", ""]
    return [*lines, ""]


def _quote(text: str) -> str:
    return " ".join(text.split())
