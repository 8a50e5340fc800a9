"""The Claude Code plugin and MCP registration files, assembled from prflow's own templates.

The skill carries the same analysis method the agent is prompted with
(``prompts/impact_system.md``) and the same report layout ``prflow impact``
renders (``templates/impact_report.md.j2``), so the editor, the Action and
the CLI cannot drift apart. ``prflow mcp plugin`` writes these files; a test
checks that the committed copies under ``deploy/`` are current.
"""

from __future__ import annotations

import json
import re
from importlib import resources

import jinja2

from prflow import __version__
from prflow.impact.large_pr import (
    FULL_READ_FILE_COUNT,
    FULL_READ_MIN_CHANGED_LINES,
    SOURCE_ONLY_FILE_COUNT,
)
from prflow.mcp.tools import REPO_TOOLS

PLUGIN_NAME = "prflow"
SKILL_PATH = "skills/pr-impact/SKILL.md"
SKILL_FINISH = "When you are done, write the report as described in step 3."
LARGE_PR_GUIDANCE = (
    f"When more than {FULL_READ_FILE_COUNT} files changed, read whole files only when more "
    f"than {FULL_READ_MIN_CHANGED_LINES} of their lines changed and judge the rest from the "
    f"per-file diff. When more than {SOURCE_ONLY_FILE_COUNT} changed, look at source files "
    "only and skip the documentation review."
)
MCP_SERVER = {"command": "prflow", "args": ["mcp"]}

_HEADING = re.compile(r"^#{1,3} [A-Z]")
_TABLE_HEADER = re.compile(r"^\|( [A-Z][^|]* \|)+$")


def _package_text(path: str) -> str:
    return resources.files("prflow").joinpath(path).read_text("utf-8")


def analysis_method() -> str:
    """The agent's system prompt with the editor's ending instead of the submit tool."""
    return (
        _package_text("prompts/impact_system.md")
        .replace("{large_pr_guidance}", LARGE_PR_GUIDANCE)
        .replace("{static_results}", "its results are what step 1 printed")
        .replace("{finish}", SKILL_FINISH)
        .replace("\n# ", "\n### ")
        .strip()
    )


def report_outline() -> str:
    """The report's headings and table headers, read from the report template itself."""
    lines: list[str] = []
    for line in _package_text("templates/impact_report.md.j2").splitlines():
        if _HEADING.match(line):
            lines += ["", line] if lines else [line]
        elif _TABLE_HEADER.match(line):
            lines.append(line)
            lines.append("|" + "|".join("---" for _ in line.strip("|").split("|")) + "|")
    return "\n".join(lines)


def skill_markdown() -> str:
    template = jinja2.Environment(
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    ).from_string(_package_text("templates/impact_skill.md.j2"))
    tools = [{"name": t.name, "description": t.description} for t in REPO_TOOLS]
    text = template.render(method=analysis_method(), outline=report_outline(), tools=tools)
    return text.strip() + "\n"


def _json(data: object) -> str:
    return json.dumps(data, indent=2) + "\n"


def plugin_files() -> dict[str, str]:
    """Relative path → content of the Claude Code plugin."""
    manifest = {
        "name": PLUGIN_NAME,
        "version": __version__,
        "description": "PR impact analysis and PR tools (review threads, failing CI, stacked "
        "PRs) backed by prflow's MCP server.",
        "license": "Apache-2.0",
    }
    return {
        ".claude-plugin/plugin.json": _json(manifest),
        ".mcp.json": _json({"mcpServers": {PLUGIN_NAME: MCP_SERVER}}),
        SKILL_PATH: skill_markdown(),
    }


def registration_example() -> str:
    """An ``mcpServers`` entry for any MCP client (Claude Desktop, Cursor, ...)."""
    entry = {**MCP_SERVER, "env": {"GITHUB_TOKEN": "<a token that can read pull requests>"}}
    return _json({"mcpServers": {PLUGIN_NAME: entry}})
