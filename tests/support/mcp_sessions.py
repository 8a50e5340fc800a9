"""A real MCP client session (the official SDK) with ``prflow mcp`` started as a subprocess."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TextIO

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_TOKEN
from tests.support.fixtures_temporal import prflow_script


def github_environment(fake: FakeGitHub, home: Path) -> dict[str, str]:
    """A user with a token for ``fake`` and state of their own under ``home``."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GITHUB_TOKEN": FAKE_GITHUB_TOKEN,
        "PRFLOW_GITHUB_API_URL": fake.api_url,
        "PRFLOW_DATA_DIR": str(home / "data"),
        "PRFLOW_CACHE_DIR": str(home / "cache"),
        "PRFLOW_DATABASE_URL": f"sqlite:///{home / 'prflow.db'}",
    }


@asynccontextmanager
async def mcp_session(
    cwd: Path, env: Mapping[str, str], errlog: TextIO | None = None
) -> AsyncIterator[ClientSession]:
    """An initialized session; ``errlog`` receives the server's stderr."""
    server = StdioServerParameters(
        command=str(prflow_script()), args=["mcp"], env=dict(env), cwd=cwd
    )
    streams = stdio_client(server) if errlog is None else stdio_client(server, errlog=errlog)
    async with streams as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def only_text(result: types.CallToolResult) -> str:
    """The one text block a prflow tool answers with."""
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text
