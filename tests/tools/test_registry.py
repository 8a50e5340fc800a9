"""The tool list the model sees, and argument validation by name."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import TOOL_SPECS, ToolError, run_tool


def test_six_tools_with_valid_schemas() -> None:
    assert [spec.name for spec in TOOL_SPECS] == [
        "list_changed_files",
        "git_diff",
        "read_file_at_ref",
        "search_code",
        "find_importers",
        "list_test_files",
    ]
    for spec in TOOL_SPECS:
        Draft202012Validator.check_schema(spec.input_schema)
        assert spec.input_schema["type"] == "object"
        assert len(spec.description) > 80
        for name in spec.input_schema.get("required", []):
            prop = spec.input_schema["properties"][name]
            assert prop.get("description"), f"{spec.name}: every required argument is described"


def test_schemas_carry_nothing_a_model_does_not_need() -> None:
    """They are resent with every request: no titles, no null unions, no closed-object flag."""
    text = json.dumps([spec.input_schema for spec in TOOL_SPECS])
    assert '"title"' not in text
    assert '"null"' not in text
    assert "additionalProperties" not in text


def test_an_argument_the_schema_does_not_name_is_still_refused(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError, match="invalid arguments for search_code"):
        run_tool(pr_reader, pr_range, "search_code", {"pattern": "x", "colour": "red"})


def test_required_arguments_match_the_contract() -> None:
    required = {spec.name: spec.input_schema.get("required", []) for spec in TOOL_SPECS}

    assert required == {
        "list_changed_files": [],
        "git_diff": [],
        "read_file_at_ref": ["path"],
        "search_code": ["pattern"],
        "find_importers": ["path"],
        "list_test_files": ["path"],
    }


def test_unknown_tool_lists_the_real_ones(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    with pytest.raises(ToolError, match=r"unknown tool 'grep'.*search_code"):
        run_tool(pr_reader, pr_range, "grep", {})


def test_bad_arguments_name_the_argument(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    with pytest.raises(ToolError) as missing:
        run_tool(pr_reader, pr_range, "search_code", {})
    with pytest.raises(ToolError) as extra:
        run_tool(pr_reader, pr_range, "read_file_at_ref", {"path": "a.py", "encoding": "x"})
    with pytest.raises(ToolError) as bad_type:
        run_tool(pr_reader, pr_range, "git_diff", {"limit": "lots"})

    assert "pattern: Field required" in missing.value.message
    assert "encoding" in extra.value.message
    assert "limit" in bad_type.value.message


def test_result_carries_structured_data_too(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    result = run_tool(pr_reader, pr_range, "list_changed_files", {"limit": 1})

    assert result.tool == "list_changed_files"
    assert result.data["page"]["total"] == 10
    assert len(result.data["page"]["items"]) == 1
