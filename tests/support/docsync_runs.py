"""Shared pieces of docsync tests: a repository whose change leaves docs wrong, scripted doc
agents, and requests."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle

from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.docsync.kind import DOCSYNC
from prflow.docsync.models import Thresholds
from prflow.docsync.run_models import AGENT_PHASE, DocsyncRequest, DocsyncResult
from tests.support.fixtures_git import GitRepoBuilder
from tests.support.scripted_anthropic import ToolUse, Turn
from workflows.docsync import DocsyncWorkflow

CLIENT_BASE = "def open_session(url, timeout=10):\n    return url\n"
CLIENT_HEAD = "def open_session(url, *, timeout, tls=True):\n    return url\n"
USAGE = (
    "# Usage\n\nOpen a session:\n\n```python\n"
    'open_session("db://x", 3)\n```\n\nThe timeout is in seconds.\n'
)
GUIDE = (
    "Guide\n=====\n\nCall ``open_session(url, timeout)``.\n\n"
    "Options\n-------\n\nThe timeout is in seconds.\n\n"
    "Notes\n-----\n\nThe timeout is in seconds.\n"
)
INDEX = "# Index\n\n- [usage](usage.md)\n"
UNRELATED = "# Unrelated\n\nNothing about sessions.\n"


def build_docsync_repo(root: Path) -> GitRepoBuilder:
    """``base``: code and docs agree; ``feature``: ``timeout`` became keyword-only and
    required and ``tls`` appeared, docs unchanged."""
    repo = GitRepoBuilder(root)
    repo.write("acme/__init__.py", "from acme.client import open_session\n")
    repo.write("acme/client.py", CLIENT_BASE)
    repo.write("docs/usage.md", USAGE)
    repo.write("docs/guide.rst", GUIDE)
    repo.write("docs/index.md", INDEX)
    repo.write("docs/unrelated.md", UNRELATED)
    repo.commit("base")
    repo.git("tag", "base")
    repo.branch("feature")
    repo.write("acme/client.py", CLIENT_HEAD)
    repo.commit("feature")
    return repo


USAGE_FIX = {
    "old_string": 'open_session("db://x", 3)',
    "new_string": 'open_session("db://x", timeout=3)',
    "reason": "timeout is keyword-only now",
}
GUIDE_FIX = {
    "old_string": "Call ``open_session(url, timeout)``.",
    "new_string": "Call ``open_session(url, timeout=..., tls=True)``.",
    "reason": "timeout is keyword-only and tls was added",
}
NOT_THERE = {
    "old_string": "The timeout is in minutes.",
    "new_string": "The timeout is in seconds.",
    "reason": "wrong unit",
}
AMBIGUOUS = {
    "old_string": "The timeout is in seconds.",
    "new_string": "The timeout (keyword-only) is in seconds.",
    "reason": "say it is keyword-only",
}


def _edit(path: str, *edits: dict[str, str]) -> Turn:
    return Turn(tool_uses=[ToolUse("edit_article", {"path": path, "edits": list(edits)})])


def _finish(changed: bool, reason: str) -> Turn:
    return Turn(tool_uses=[ToolUse("finish_doc", {"changed": changed, "reason": reason})])


USAGE_ROUTE = "Doc to keep true: `docs/usage.md`"
GUIDE_ROUTE = "Doc to keep true: `docs/guide.rst`"
INDEX_ROUTE = "Doc to keep true: `docs/index.md`"


def docsync_routes(usage_held_by: threading.Event | None = None) -> dict[str, list[Turn]]:
    """Per doc: usage.md is fixed in one batch; guide.rst's first batch fails (one edit
    absent), its file stays untouched, then the fix applies; index.md needs nothing.
    usage.md's first answer waits for ``usage_held_by`` when given."""
    guide = "docs/guide.rst"
    first = _edit("docs/usage.md", USAGE_FIX)
    if usage_held_by is not None:
        first = Turn(tool_uses=first.tool_uses, release=usage_held_by)
    return {
        USAGE_ROUTE: [
            first,
            _finish(True, "The call shows timeout."),
        ],
        GUIDE_ROUTE: [
            _edit(guide, GUIDE_FIX, NOT_THERE),
            _edit("docs/usage.md", USAGE_FIX),
            Turn(tool_uses=[ToolUse("read_file", {"path": guide})]),
            _edit(guide, AMBIGUOUS),
            _edit(guide, GUIDE_FIX),
            _finish(True, "Signature fixed."),
        ],
        INDEX_ROUTE: [
            _finish(False, "It only links to usage.md; no call shown."),
        ],
    }


def docsync_request(settings: Settings, repo: Path | str, **fields: Any) -> DocsyncRequest:
    plan = fields.pop("plan", {})
    # index.md (which only links to usage.md) is reviewed, so one agent finds nothing to do
    fields.setdefault("thresholds", Thresholds(link_decay=0.5))
    return DocsyncRequest(
        repo=str(repo),
        base="base",
        head="feature",
        llm=phase_plan(settings, DOCSYNC, AGENT_PHASE, **plan),
        **fields,
    )


async def start_docsync(
    client: Client, settings: Settings, request: DocsyncRequest, workflow_id: str
) -> WorkflowHandle[DocsyncWorkflow, DocsyncResult]:
    return await client.start_workflow(
        DocsyncWorkflow.run,
        request,
        id=workflow_id,
        task_queue=settings.temporal.task_queue,
    )
