"""A real MCP client session with ``prflow mcp``: list the tools, call each, read errors."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession

from prflow.tools.registry import TOOL_NAMES
from tests.support.fake_github import FakeGitHub
from tests.support.mcp_sessions import github_environment, mcp_session
from tests.support.pr_checks_runs import add_failing_job

REPO_TOOLS = set(TOOL_NAMES)  # the six impact tools, as the agent gets them
PR_TOOLS = {
    "pr_comments", "pr_checks", "pr_stack", "pr_threads", "pr_reply", "pr_resolve",
    "pr_conflicts", "pr_rebase", "pr_permissions",
}  # fmt: skip
RANGE = {"base": "base", "head": "feature"}


@asynccontextmanager
async def _session(cwd: Path, fake: FakeGitHub, home: Path) -> AsyncIterator[ClientSession]:
    async with mcp_session(cwd, github_environment(fake, home)) as session:
        yield session


async def _call(session: ClientSession, name: str, arguments: dict[str, Any]) -> Any:
    result = await session.call_tool(name, arguments)
    assert isinstance(result, types.CallToolResult)
    assert not result.is_error, result.content
    (text,) = result.content
    assert isinstance(text, types.TextContent)
    assert name in REPO_TOOLS or json.loads(text.text) == result.structured_content
    return result.structured_content


async def _error(session: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    result = await session.call_tool(name, arguments)
    assert isinstance(result, types.CallToolResult) and result.is_error
    (text,) = result.content
    assert isinstance(text, types.TextContent)
    assert "\n" not in text.text and "Traceback" not in text.text
    return text.text


async def test_the_tools_are_listed_with_json_schemas(
    sample_repo: Path, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    async with _session(sample_repo, fake_github, tmp_path) as session:
        listed = await session.list_tools()

    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == REPO_TOOLS | PR_TOOLS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.description
    for name in REPO_TOOLS:
        assert {"repo", "base", "head"} <= set(tools[name].input_schema["properties"])
    assert tools["search_code"].input_schema["required"] == ["pattern"]
    assert tools["pr_comments"].input_schema["required"] == ["pr"]
    assert tools["pr_checks"].input_schema["properties"]["page_size"]["maximum"] == 100


async def test_each_repo_tool_reads_the_local_repository(
    sample_repo: Path, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    async with _session(sample_repo, fake_github, tmp_path) as session:
        changed = await _call(session, "list_changed_files", RANGE)
        diff = await _call(session, "git_diff", RANGE | {"file": "web/src/api.ts"})
        read = await _call(session, "read_file_at_ref", RANGE | {"path": "web/src/index.ts"})
        found = await _call(session, "search_code", RANGE | {"pattern": "formatName"})
        importers = await _call(session, "find_importers", RANGE | {"path": "web/src/api.ts"})
        tests = await _call(session, "list_test_files", RANGE | {"path": "shop/cart.py"})

    assert "web/src/api.ts" in {item["path"] for item in changed["page"]["items"]}
    assert diff["file"] == "web/src/api.ts"
    assert any(line.startswith("+") for line in diff["lines"])
    assert any("loadUser" in line for line in read["lines"])
    assert {hit["file"] for hit in found["page"]["items"]} >= {"web/src/api.ts", "web/src/page.ts"}
    assert {item["path"] for item in importers["page"]["items"]} == {
        "web/src/index.ts",
        "web/src/view.tsx",
    }
    assert "tests/test_cart.py" in {item["path"] for item in tests["tests"]}


async def test_each_pr_tool_reads_github(
    sample_repo: Path, fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    fake = fake_github_pr
    fake.add_review_thread("octo-org", "service", 5, "app.py", 3, [("alice", "Off by one?")])
    add_failing_job(fake, "tests", "gotest.log", "go test ./...")
    async with _session(sample_repo, fake, tmp_path) as session:
        comments = await _call(session, "pr_comments", {"pr": "octo-org/service#5"})
        checks = await _call(
            session, "pr_checks", {"pr": "https://github.com/octo-org/service/pull/5"}
        )
        stack = await _call(session, "pr_stack", {"pr": "octo-org/service/pull/5"})

    assert comments["unresolved_threads"] == 1
    assert comments["threads"]["pagination"]["has_next"] is False
    assert checks["state"] == "failed"
    assert [f["test"] for f in checks["failures"]["items"]] == [
        "TestAbsNegative",
        "TestAbsTable/minus_one",
        "TestPanics",
    ]
    assert checks["commands"][0].startswith("go test -run '^TestAbsNegative$'")
    assert stack["stacked"] is False


async def test_mistakes_come_back_as_one_line_errors(
    sample_repo: Path, fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    async with _session(sample_repo, fake_github_pr, tmp_path) as session:
        bad_pr = await _error(session, "pr_comments", {"pr": "octo-org/service"})
        bad_page = await _error(session, "pr_checks", {"pr": "octo-org/service#5", "page": 0})
        missing_pr = await _error(session, "pr_stack", {"pr": "octo-org/service#404"})
        outside = await _error(session, "read_file_at_ref", RANGE | {"path": "../etc/passwd"})
        bad_ref = await _error(session, "list_changed_files", {"base": "no-such-branch"})
        unknown = await _error(session, "deploy", {})

    assert bad_pr.startswith(
        "Not a pull request identifier: 'octo-org/service'. Use owner/repo#123"
    )
    assert bad_page == "invalid arguments: page: Input should be greater than or equal to 1"
    assert missing_pr.startswith("Pull request octo-org/service#404 was not found (404 while")
    assert outside.startswith("read_file_at_ref: ")
    assert "no-such-branch" in bad_ref
    assert unknown.startswith("unknown tool 'deploy'")


async def test_resolution_tools_reply_and_resolve_on_github(
    sample_repo: Path, fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    fake = fake_github_pr
    finding = "Possible None.\n\n<!-- prflow:finding 0123456789abcdef -->"
    ours = fake.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [("prflow-bot", finding)], outdated=True
    )
    theirs = fake.add_review_thread("octo-org", "service", 5, "db.py", 9, [("alice", "why?")])
    async with _session(sample_repo, fake, tmp_path) as session:
        listed = await _call(session, "pr_threads", {"pr": "octo-org/service#5"})
        replied = await _call(
            session,
            "pr_reply",
            {"pr": "octo-org/service#5", "target": theirs.id, "body": "Because of X."},
        )
        resolved = await _call(
            session, "pr_resolve", {"pr": "octo-org/service#5", "outdated": True}
        )
        allowed = await _call(session, "pr_permissions", {"pr": "octo-org/service#5"})
        nothing = await _error(session, "pr_resolve", {"pr": "octo-org/service#5"})

    assert {t["id"]: t["prflow"] for t in listed["threads"]} == {ours.id: True, theirs.id: False}
    assert replied["in_reply_to_id"] == theirs.comments[0].id
    assert theirs.comments[-1].body == "Because of X."
    assert [t["id"] for t in resolved["threads"]] == [ours.id] and ours.is_resolved
    assert {t["tool"]: t["allowed"] for t in allowed["tools"]}["resolve"] is True
    assert nothing.startswith("Name the threads to resolve")
