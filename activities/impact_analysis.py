"""Activities of the impact workflow: read commit snapshots, run the pure analyzers, store results.

Each activity loads what it needs from the blob store and the per-SHA
snapshots, calls functions from ``prflow/`` and stores its output as a blob,
returning only keys and counts to the workflow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from temporalio import activity

from activities.heartbeats import heartbeating
from prflow import __version__
from prflow.analysis.breaking import analyse_breaking_changes
from prflow.analysis.categories import categorize, config_changes
from prflow.analysis.impact_graph import build_impact_graph
from prflow.analysis.stale_docs import find_stale_doc_refs
from prflow.analysis.test_gaps import find_test_gaps
from prflow.analysis.ts_compiler import CompilerLocator
from prflow.changes import ChangedFile, FileCategory, Totals
from prflow.config import cached_settings
from prflow.git.repo import GitRepoReader, changed_files
from prflow.impact.agent_context import context_message
from prflow.impact.evidence import CitedText, Unreadable, cited_text, partition_findings
from prflow.impact.large_pr import files_for_analysis, large_pr_strategy
from prflow.impact.llm_phase import agent_tools, parse_findings, system_prompt
from prflow.impact.models import ImpactReport
from prflow.impact.render.comment import render_pr_comment
from prflow.impact.render.markdown import render_markdown
from prflow.impact.render.sarif import render_sarif
from prflow.impact.run_models import ChangeSet, LlmContext, ReportRefs, StaticSummary
from prflow.impact.scoring import assess_risk
from prflow.impact.stage_inputs import (
    BuildReportInput,
    LlmContextInput,
    StaticFindings,
    StaticInput,
    VerifyInput,
    VerifyResult,
)
from prflow.llm.token_estimate import tool_schema_chars
from prflow.repo_models import ResolvedRange, repository_name
from prflow.severity import Severity
from prflow.state_dirs import cache_dir
from prflow.store.blobs import get_json, get_text, put_json, put_text
from prflow.store.parse_cache import StoreParseCache

INLINE_BUDGET_BYTES = 160 * 1024
"""Renderings up to this size (together) travel in the workflow result, below 256 KiB."""


def _db() -> str:
    return cached_settings().resolved_database_url()


def _load_changes(changes: ChangeSet) -> list[ChangedFile]:
    return [ChangedFile.model_validate(item) for item in get_json(_db(), changes.files_key)]


@activity.defn(name="impact_changes")
@heartbeating
def collect_changes(rng: ResolvedRange) -> ChangeSet:
    """List the changed files with their categories and decide the large-PR strategy."""
    files = [f.model_copy(update={"category": categorize(f.path)}) for f in changed_files(rng)]
    totals = Totals(
        files=len(files),
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
    )
    key = put_json(_db(), [f.model_dump(mode="json") for f in files])
    return ChangeSet(
        files_key=key,
        totals=totals,
        source_files=sum(1 for f in files if f.category == FileCategory.source),
        large_pr=large_pr_strategy(files),
    )


@activity.defn(name="impact_static_analysis")
@heartbeating
def static_analysis(inp: StaticInput) -> StaticSummary:
    """Breaking changes, test gaps, impact graph, stale docs and config tiers, in code."""
    rng = inp.range
    changed = _load_changes(inp.changes)
    analysed = files_for_analysis(changed, inp.changes.large_pr)
    reader = GitRepoReader.for_range(rng)
    base_tree = reader.tree(rng.merge_base_sha)
    head_tree = reader.tree(rng.head_sha, near=rng.merge_base_sha)
    activity.heartbeat("import graphs")
    near_base = (rng.merge_base_sha, changed)
    reader.parse_for_graphs([(rng.merge_base_sha, None), (rng.head_sha, near_base)])
    # Base first: the head graph then keeps base edges for every file the PR did not edit.
    base_graph = reader.import_graph(rng.merge_base_sha)
    head_graph = reader.import_graph(rng.head_sha, near=near_base)
    activity.heartbeat("breaking changes")
    checkout = Path(rng.location)
    api = analyse_breaking_changes(
        analysed,
        base_tree,
        head_tree,
        head_graph,
        base_graph,
        cache=StoreParseCache(_db()),
        progress=activity.heartbeat,
        compiler=CompilerLocator(checkout if checkout.is_dir() else None, cache_dir()),
    )
    breaking = api.changes
    activity.heartbeat("tests and impact graph")
    gaps, coverage = find_test_gaps(changed, head_tree, head_graph)
    graph = build_impact_graph(changed, head_graph, base_graph)
    stale = []
    if not inp.changes.large_pr.doc_staleness_skipped:
        activity.heartbeat("documentation")
        stale = find_stale_doc_refs(changed, breaking, head_tree)
    findings = StaticFindings(
        breaking_changes=breaking,
        test_gaps=gaps,
        coverage=coverage,
        stale_docs=stale,
        impact_graph=graph,
        config_changes=config_changes(changed),
        not_analysed=api.not_analysed,
        type_judge=api.type_judge,
    )
    key = put_json(_db(), findings.model_dump(mode="json"))
    return StaticSummary(
        key=key,
        breaking=len(breaking),
        test_gaps=sum(1 for g in gaps if not g.tests_updated),
        stale_docs=len(stale),
        indirectly_affected=len(graph.indirectly_affected),
    )


@activity.defn(name="impact_llm_context")
@heartbeating
def llm_context(inp: LlmContextInput) -> LlmContext:
    """Store the system prompt and the first user message for the agent."""
    db = _db()
    system = system_prompt(inp.changes.large_pr)
    message = context_message(
        repo=repository_name(inp.range.location),
        base=inp.range.base_ref,
        head=inp.range.head_ref,
        changed=_load_changes(inp.changes),
        static=StaticFindings.model_validate(get_json(db, inp.static_key)),
    )
    blocks = [{"type": "text", "text": message}]
    tools = agent_tools(inp.changes.large_pr)
    return LlmContext(
        system_key=put_text(db, system),
        system_chars=len(system),
        message_key=put_json(db, blocks),
        message_chars=len(message),
        tools_key=put_json(db, [tool.model_dump() for tool in tools]),
        tools_chars=tool_schema_chars(tools),
    )


@activity.defn(name="impact_verify_findings")
@heartbeating
def verify_findings(inp: VerifyInput) -> VerifyResult:
    """Keep only model findings whose cited evidence exists at the cited place.

    A finding citing what the tool layer refuses (a directory, a path out of the
    repository, an escaping symlink, a binary file) is dropped with its reason.
    """
    findings, malformed = parse_findings(inp.submitted)
    reader = GitRepoReader.for_range(inp.range)
    sha_of = {"head": inp.range.head_sha, "base": inp.range.merge_base_sha}
    kept, rejected = partition_findings(
        findings, lambda ref, path: _text_at(reader, sha_of[ref], path)
    )
    return VerifyResult(kept=kept, rejected=[*malformed, *rejected])


@activity.defn(name="impact_build_report")
@heartbeating
def build_report(inp: BuildReportInput) -> ReportRefs:
    """Score the final findings in code and render every output format."""
    db = _db()
    changed = _load_changes(inp.changes)
    static = StaticFindings.model_validate(get_json(db, inp.static_key))
    llm_breaking = [f.severity for f in inp.llm.findings if f.category == "breaking"]
    llm_stale = sum(1 for f in inp.llm.findings if f.category == "stale_doc")
    risk = assess_risk(
        breaking=static.breaking_changes,
        coverage=static.coverage,
        total_changed_lines=inp.changes.totals.additions + inp.changes.totals.deletions,
        stale_docs=len(static.stale_docs) + llm_stale,
        config=static.config_changes,
        direct_importers=len(static.impact_graph.direct_importers),
        extra_breaking_severities=[Severity(s) for s in llm_breaking],
    )
    rng = inp.range
    report = ImpactReport(
        repo=rng.location,
        base_ref=rng.base_ref,
        head_ref=rng.head_ref,
        base_sha=rng.merge_base_sha,
        head_sha=rng.head_sha,
        pull_request=inp.pull_request,
        totals=inp.changes.totals,
        changed_files=changed,
        breaking_changes=static.breaking_changes,
        test_gaps=static.test_gaps,
        coverage=static.coverage,
        stale_docs=static.stale_docs,
        impact_graph=static.impact_graph,
        config_changes=static.config_changes,
        not_analysed=static.not_analysed,
        type_judge=static.type_judge,
        large_pr=inp.changes.large_pr,
        risk=risk,
        llm=inp.llm,
        workflow_id=inp.workflow_id,
    )
    outputs = {
        "json": report.model_dump_json(indent=2),
        "md": render_markdown(report),
        "sarif": json.dumps(render_sarif(report, __version__), indent=2),
    }
    return ReportRefs(
        score=risk.score,
        level=risk.level,
        report_key=put_text(db, outputs["json"]),
        markdown_key=put_text(db, outputs["md"]),
        sarif_key=put_text(db, outputs["sarif"]),
        comment_key=put_text(db, render_pr_comment(report)),
        inline=small_outputs(outputs),
    )


def small_outputs(outputs: dict[str, str], budget: int = INLINE_BUDGET_BYTES) -> dict[str, str]:
    """The renderings that fit inline in a workflow result, smallest first."""
    kept: dict[str, str] = {}
    for name, text in sorted(outputs.items(), key=lambda item: len(item[1])):
        size = len(text.encode("utf-8"))
        if size > budget:
            break
        kept[name] = text
        budget -= size
    return kept


def _text_at(reader: GitRepoReader, sha: str, path: str) -> CitedText:
    """The cited file for evidence checks; refusals by the tool layer propagate as ToolError."""
    try:
        return cited_text(reader.read_file(sha, path))
    except OSError as err:  # e.g. a name too long for the file system
        return Unreadable(f"cannot be read ({err.strerror or err})")


def load_text(key: str) -> str:
    """Read a stored report (used by the CLI after the workflow returns)."""
    return get_text(_db(), key)


IMPACT_ACTIVITIES: list[Callable[..., Any]] = [
    collect_changes,
    static_analysis,
    llm_context,
    verify_findings,
    build_report,
]
