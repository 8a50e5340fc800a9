"""``prflow mcp`` driven by the official MCP client: every failure is a tool result with
``isError`` and one line, and a durable wait leaves nothing running behind it."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from tests.support.cli_runs import embedded_environment, free_port
from tests.support.fake_github import FakeGitHub
from tests.support.mcp_sessions import github_environment, mcp_session, only_text
from tests.support.pr_checks_runs import add_failing_job
from worker.ports import port_is_free
from worker.warm import STATE_FILE


def state_path_in(home: Path) -> Path:
    return home / "data" / STATE_FILE


RANGE = {"base": "base", "head": "feature"}
SECRET = "s3cr3t-token-value"


async def _failure(session: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    result = await session.call_tool(name, arguments)  # a JSON-RPC error would raise here
    text = only_text(result)
    assert result.is_error, text
    assert "\n" not in text and "Traceback" not in text and len(text) <= 500, text
    return text


async def test_each_failure_is_a_tool_result_of_one_line(
    sample_repo: Path, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    closed = free_port()  # nothing listens there: git's connection is refused
    stderr = (tmp_path / "stderr.log").open("w+")
    async with mcp_session(sample_repo, github_environment(fake_github, tmp_path), stderr) as s:
        unreachable = await _failure(
            s, "list_changed_files", {"repo": f"https://127.0.0.1:{closed}/team/api.git"}
        )
        nul_path = await _failure(s, "read_file_at_ref", RANGE | {"path": "web/\0index.ts"})
        nul_head = await _failure(s, "git_diff", {"base": "base", "head": "feat\0ure"})
        nul_repo = await _failure(s, "list_test_files", RANGE | {"repo": ".\0"})
        long_pattern = await _failure(s, "search_code", RANGE | {"pattern": "a" * 100_000})
        token_url = await _failure(
            s, "list_changed_files", {"repo": f"https://{SECRET}@github.com/team/api.git"}
        )
        password_scp = await _failure(
            s, "find_importers", RANGE | {"repo": f"git:{SECRET}@github.com:team/api.git"}
        )
        still_works = await s.call_tool("list_changed_files", RANGE)
    stderr.seek(0)

    assert unreachable.startswith(f"cannot reach https://127.0.0.1:{closed}/team/api.git: ")
    assert "Check the URL and this machine's network" in unreachable
    assert nul_path.startswith("read_file_at_ref: path contains a NUL byte")
    assert nul_head == "head contains a NUL byte; pass a branch, tag or commit"
    assert nul_repo == "repo contains a NUL byte; pass '.' or a clone URL"
    assert long_pattern.startswith("search_code: git grep cannot compile the regular expression")
    assert "(100000 characters): it is too long or too complex" in long_pattern
    assert token_url.startswith("https://***@github.com/team/api.git carries credentials")
    assert password_scp.startswith("git:***@github.com:team/api.git carries credentials")
    assert SECRET not in token_url + password_scp
    assert not still_works.is_error, "the server carries on after each failure"
    assert "Traceback" not in stderr.read()


@pytest.mark.skipif(shutil.which("gh") is not None, reason="a logged-in gh would be used")
async def test_missing_credentials_are_said_once_with_each_tools_read_permission(
    sample_repo: Path, tmp_path: Path
) -> None:
    port = free_port()
    env = embedded_environment(tmp_path, port, free_port(), warm_seconds=60)
    for name in ("GITHUB_TOKEN", "GH_TOKEN"):
        env.pop(name, None)
    async with mcp_session(sample_repo, env) as session:
        started = time.monotonic()
        waited = await _failure(session, "pr_checks", {"pr": "octo-org/service#5", "wait": True})
        seconds = time.monotonic() - started
        read = await _failure(session, "pr_stack", {"pr": "octo-org/service#5"})

    assert waited == read
    assert waited.startswith("No GitHub credentials: set GITHUB_TOKEN (or GH_TOKEN)")
    assert waited.count("GitHub App") == 1 and waited.count("GITHUB_TOKEN") == 1
    assert "write" not in waited
    assert "pr_comments needs pull requests: read" in waited
    assert "pr_checks needs pull requests, checks, commit statuses and actions: read" in waited
    assert "pr_stack needs pull requests and contents: read" in waited
    assert seconds < 5, "refused before any server or worker starts"
    assert port_is_free(port), "no Temporal server was started"
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def _processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes whose arguments or environment mention ``text`` (a
    test's private directory: the MCP server, a dev server or worker it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            environment = (entry / "environ").read_bytes()
        except OSError:
            continue
        if text.encode() in command + environment:
            found.append(command.decode(errors="replace"))
    return found


@pytest.mark.temporal
async def test_a_durable_wait_answers_pings_meanwhile_and_leaves_nothing_running(
    sample_repo: Path, fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    """The embedded path end to end: a dev server and workers start for the call (seconds,
    which is what the pings must not wait behind) and stop with it."""
    add_failing_job(fake_github_pr, "tests", "gotest.log", "go test ./...")
    port = free_port()
    env = embedded_environment(tmp_path, port, free_port(), warm_seconds=60)
    env |= {k: v for k, v in github_environment(fake_github_pr, tmp_path).items() if "GITHUB" in k}
    pings: list[float] = []
    async with mcp_session(sample_repo, env) as session:
        call = asyncio.ensure_future(
            session.call_tool("pr_checks", {"pr": "octo-org/service#5", "wait": True})
        )
        while not call.done():
            sent = time.monotonic()
            await session.send_ping()
            pings.append(time.monotonic() - sent)
            await asyncio.wait({call}, timeout=0.2)
        result = call.result()
        running_during_session = _processes_mentioning(str(tmp_path))
    await asyncio.sleep(0.5)  # the server process is gone; anything it left would still run

    assert not result.is_error, only_text(result)
    report = result.structured_content or {}
    assert report["state"] == "failed"
    assert [f["test"] for f in report["failures"]["items"]][:1] == ["TestAbsNegative"]
    assert len(pings) >= 3 and max(pings) < 1.0, f"ping waited {max(pings):.1f}s"
    assert port_is_free(port), "the dev server stopped with the call"
    assert not state_path_in(tmp_path).exists(), "no warm worker was started"
    assert any(" mcp" in c for c in running_during_session), "the check below sees processes"
    assert _processes_mentioning(str(tmp_path)) == [], "nothing outlives the MCP server"
