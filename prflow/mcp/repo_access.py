"""The six repo tools run in-process on a local repository, through the workers' git readers.

Resolving base and head pins them to commits, exactly as the impact workflow
does; the import graph ``find_importers`` builds is cached per commit for the
life of the server, so repeated calls stay cheap.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prflow.errors import UserError
from prflow.mcp.tool_args import RepoTarget
from prflow.repo_models import RepoSpec, looks_like_url
from prflow.tools.reader import ToolError
from prflow.tools.registry import ToolResult, run_tool


async def run_repo_tool(target: RepoTarget, name: str, arguments: dict[str, Any]) -> ToolResult:
    return await asyncio.to_thread(_run, target, name, arguments)


def _run(target: RepoTarget, name: str, arguments: dict[str, Any]) -> ToolResult:
    from prflow.git.repo import GitRepoReader, resolve_range

    location = target.repo
    if not looks_like_url(location):
        location = str(Path(location).expanduser().resolve())
    rng = resolve_range(RepoSpec(location=location), target.base, target.head)
    try:
        return run_tool(GitRepoReader.for_range(rng), rng, name, arguments)
    except ToolError as exc:
        raise UserError(f"{name}: {exc.message}") from exc
