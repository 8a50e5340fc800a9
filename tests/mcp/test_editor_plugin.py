"""The editor plugin is assembled from prflow's templates, and the committed copy is current."""

from __future__ import annotations

import json
from pathlib import Path

from prflow.editor_plugin import SKILL_PATH, plugin_files, registration_example
from prflow.mcp.tools import TOOLS
from tests.support.cli_runs import run_prflow

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PLUGIN = DEPLOY / "editor" / "claude-plugin"


def test_committed_plugin_files_are_what_the_templates_produce() -> None:
    stale = [
        path
        for path, text in plugin_files().items()
        if not (PLUGIN / path).is_file() or (PLUGIN / path).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"run `prflow mcp plugin --deploy-dir deploy`; out of date: {stale}"
    assert (DEPLOY / "mcp" / "mcp.json").read_text(encoding="utf-8") == registration_example()


def test_the_skill_carries_the_agents_method_and_the_reports_layout() -> None:
    skill = plugin_files()[SKILL_PATH]
    method = (Path(__file__).resolve().parents[2] / "prflow/prompts/impact_system.md").read_text()
    template = (
        Path(__file__).resolve().parents[2] / "prflow/templates/impact_report.md.j2"
    ).read_text()

    assert skill.startswith("---\nname: pr-impact\ndescription: ")
    for line in method.splitlines():
        if line.strip() and "{" not in line and not line.startswith("# "):
            assert line in skill, f"method line missing from the skill: {line!r}"
    assert "submit_impact_findings" not in skill and "{" not in skill.split("```")[0]
    for header in ("| File | Change | Symbol | Severity | Consumers |", "## Risk Factor Breakdown"):
        assert header in template and header in skill
    assert "prflow impact --repo . --base <base> --head <head> --no-llm" in skill


def test_the_plugin_registers_the_server_whose_tools_the_skill_names() -> None:
    registration = json.loads(plugin_files()[".mcp.json"])
    assert registration["mcpServers"]["prflow"] == {"command": "prflow", "args": ["mcp"]}
    skill = plugin_files()[SKILL_PATH]
    for tool in TOOLS:
        if not tool.name.startswith("pr_"):
            assert f"`{tool.name}`" in skill


async def test_prflow_mcp_plugin_writes_the_files(tmp_path: Path) -> None:
    run = await run_prflow("mcp", "plugin", "--deploy-dir", str(tmp_path), env={"PATH": "/usr/bin"})
    assert run.code == 0, run.describe()
    for path, text in plugin_files().items():
        assert (tmp_path / "editor" / "claude-plugin" / path).read_text(encoding="utf-8") == text
    blocked = tmp_path / "file"
    blocked.write_text("")
    refused = await run_prflow(
        "mcp", "plugin", "--deploy-dir", str(blocked), env={"PATH": "/usr/bin"}
    )
    assert refused.code == 2
    assert refused.stderr_lines == [
        f"prflow: error: cannot write {blocked}/editor/claude-plugin/.claude-plugin/plugin.json: "
        "Not a directory; choose another --deploy-dir"
    ]
