"""The docsync workflow on the real dev server: doc agents edit two docs through the
exact-unique edit activity, a failing batch changes nothing, every edit is audited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.state import child_agent_id
from prflow.config import Settings, cached_settings
from prflow.docsync.report import DocsyncReport
from prflow.docsync.run_models import DocStatus
from prflow.store.blobs import get_text
from prflow.store.edit_ledger import edits_of_run
from prflow.store.ledger import attempts_for_workflow
from tests.support.docsync_runs import (
    GUIDE,
    build_docsync_repo,
    docsync_request,
    docsync_routes,
    start_docsync,
)
from tests.support.fixtures_temporal import run_worker
from tests.support.scripted_anthropic import ScriptedAnthropic

pytestmark = pytest.mark.temporal


def _tool_result_texts(body: dict[str, object]) -> list[str]:
    last = body["messages"][-1]  # type: ignore[index]
    texts: list[str] = []
    for block in last["content"]:
        if block.get("type") == "tool_result":
            content = block.get("content")
            if isinstance(content, list):
                texts += [part.get("text", "") for part in content]
            else:
                texts.append(str(content))
    return texts


async def test_a_signature_change_updates_two_docs_with_reasons(
    temporal_client: Client,
    temporal_settings: Settings,
    prflow_home: Path,
    tmp_path: Path,
    scripted_anthropic: ScriptedAnthropic,
) -> None:
    repo = build_docsync_repo(tmp_path / "repo")
    scripted_anthropic.route(docsync_routes())
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_docsync(
            temporal_client,
            temporal_settings,
            docsync_request(temporal_settings, repo.path, max_concurrency=2),
            "docsync-agents",
        )
        result = await handle.result()

    outcomes = {o.path: o for o in result.outcomes}
    assert outcomes["docs/usage.md"].status == DocStatus.edited
    assert outcomes["docs/guide.rst"].status == DocStatus.edited
    assert outcomes["docs/usage.md"].edits == 1
    assert outcomes["docs/guide.rst"].edits == 1  # the failed batches left no edit behind
    index = outcomes["docs/index.md"]
    assert index.status == DocStatus.unchanged
    assert index.model_text and "only links to usage.md" in index.reason
    assert "docs/unrelated.md" not in outcomes

    guide_turns = scripted_anthropic.requests_of("Doc to keep true: `docs/guide.rst`")
    failed = _tool_result_texts(guide_turns[1].body)[0]
    assert "not found" in failed.lower()
    assert "Actual file content" in failed
    assert "Options\n-------\n\nThe timeout is in seconds." in failed  # the file, to copy from
    refused = _tool_result_texts(guide_turns[2].body)[0]
    assert "docs/usage.md" in refused  # another doc than this agent's: refused
    reread = _tool_result_texts(guide_turns[3].body)[0]
    assert "Call ``open_session(url, timeout)``." in reread  # the failed batch changed nothing
    ambiguous = _tool_result_texts(guide_turns[4].body)[0]
    assert "2 times" in ambiguous or "2 occurrences" in ambiguous

    db = cached_settings().resolved_database_url()
    report = DocsyncReport.model_validate_json(get_text(db, result.report_key))
    assert [(e.path, e.reason) for e in report.edits] == [
        ("docs/guide.rst", "timeout is keyword-only and tls was added"),
        ("docs/usage.md", "timeout is keyword-only now"),
    ] or [(e.path, e.reason) for e in report.edits] == [
        ("docs/usage.md", "timeout is keyword-only now"),
        ("docs/guide.rst", "timeout is keyword-only and tls was added"),
    ]
    for edit in report.edits:
        assert edit.diff.startswith(f"diff --git a/{edit.path} b/{edit.path}")
    assert result.patch_key is not None
    combined = get_text(db, result.patch_key)
    assert '+open_session("db://x", timeout=3)' in combined
    assert "+Call ``open_session(url, timeout=..., tls=True)``." in combined
    markdown = get_text(db, result.markdown_key)
    assert "Reason _(model text)_: timeout is keyword-only now" in markdown
    assert "no change needed" in markdown

    ledger = edits_of_run(db, "docsync-agents")
    assert sorted(e.path for e in ledger) == ["docs/guide.rst", "docs/usage.md"]
    assert {e.phase for e in ledger} == {"docsync"}
    attempts = [
        attempt
        for path in ("docs/usage.md", "docs/guide.rst", "docs/index.md")
        for attempt in attempts_for_workflow(
            db, child_agent_id("docsync-agents", f"docsync:{path}")
        )
    ]
    assert {a.phase for a in attempts} == {"docsync"}
    assert {a.workflow_kind for a in attempts} == {"docsync"}
    assert len(attempts) == 2 + 6 + 1
    assert json.loads(report.model_dump_json())["schema_version"] == "1"
    # the user's checkout is untouched by a dry run
    assert (repo.path / "docs/guide.rst").read_text() == GUIDE


async def test_without_a_model_docs_are_found_and_edits_skipped(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, tmp_path: Path
) -> None:
    repo = build_docsync_repo(tmp_path / "repo")
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_docsync(
            temporal_client,
            temporal_settings,
            docsync_request(temporal_settings, repo.path),
            "docsync-static",
        )
        result = await handle.result()
    assert result.counts == {"must_update": 2, "review": 1, "probably_fine": 0}
    assert result.outcomes == []
    assert result.edits_skipped is not None and "ANTHROPIC_API_KEY" in result.edits_skipped
    assert "Edits were skipped" in result.inline["md"]
    assert "docs/usage.md" in result.inline["md"]
