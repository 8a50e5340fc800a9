"""The impact agent's first message is compact, holds what the model needs, and is not re-asked.

Every request of the agent repeats the first message, the system prompt and the
tool schemas, so anything wasteful here is paid once per model turn.
"""

from __future__ import annotations

import json
from typing import Any

from prflow.analysis.findings import (
    ImpactEdge,
    ImpactGraph,
    NotAnalysed,
)
from prflow.analysis.findings import TestGap as SourceTests
from prflow.changes import ChangedFile, FileStatus
from prflow.impact.agent_context import (
    MAX_CONTEXT_FILES,
    MAX_LISTED_IMPORTERS,
    compact_json,
    context_message,
)
from prflow.impact.large_pr import large_pr_strategy
from prflow.impact.llm_phase import agent_tools, system_prompt
from prflow.impact.stage_inputs import StaticFindings
from tests.render.report_factory import breaking_changes, changed_files, make_report

MODEL_KEYS = {
    "breaking_changes",
    "file",
    "kind",
    "detail",
    "new_name",
    "symbols",
    "consumer_files",
    "tests_not_updated",
    "no_tests_found",
    "stale_docs",
    "doc",
    "names",
    "reason",
    "replacement",
    "excerpt",
    "direct_importers",
    "direct_importers_not_listed",
    "indirectly_affected_files",
    "config_changes",
    "not_analysed",
    "path",
    "symbol",
}
"""Every key the first message may use; a new one must be argued for here."""

CHANGED_FILES_TOOL = "list_changed_files"
TESTS = [f"tests/test_{n}.py" for n in range(12)]


def changed(count: int = 4) -> list[ChangedFile]:
    """The report factory's files (one renamed) and a binary one, padded with docs."""
    files = [*changed_files(), ChangedFile(path="logo.png", status=FileStatus.added, binary=True)]
    files += [
        ChangedFile(path=f"docs/page{n}.md", status=FileStatus.modified, additions=1)
        for n in range(max(count - len(files), 0))
    ]
    return files[:count]


def coverage_of(source: str, existing: list[str], *, updated: bool) -> SourceTests:
    return SourceTests(
        source_file=source,
        expected_tests=[f"tests/test_{source.rsplit('/', 1)[-1]}"],
        existing_tests=existing,
        tests_updated=updated,
    )


def static_findings(importers: int = 2) -> StaticFindings:
    """Every kind of static finding, with the long path lists real repositories produce."""
    fetch, _ = breaking_changes()
    stream = fetch.model_copy(update={"symbol": "Client.stream", "line": 40})
    report = make_report(
        breaking_changes=[*breaking_changes(), stream],
        test_gaps=[
            coverage_of("src/client.py", TESTS, updated=False),
            coverage_of("src/app.py", TESTS, updated=True),
            coverage_of("src/auth/tokens.ts", [], updated=False),
        ],
        impact_graph=ImpactGraph(
            directly_changed=["src/client.py", "src/auth/tokens.ts"],
            direct_importers=[f"src/mod{n}.py" for n in range(importers)],
            indirectly_affected=[f"src/far{n}.py" for n in range(7)],
            edges=[ImpactEdge(importer="src/mod0.py", imported="src/client.py")],
        ),
        not_analysed=[NotAnalysed(path="src/big.py", reason="larger than 1000000 bytes")],
    )
    return StaticFindings.model_validate(
        {name: getattr(report, name) for name in StaticFindings.model_fields}
    )


def message(files: list[ChangedFile] | None = None, static: StaticFindings | None = None) -> str:
    return context_message(
        repo="/src/widgets",
        base="main (1a2b3c4d5e6f)",
        head="feature (6f5e4d3c2b1a)",
        changed=changed() if files is None else files,
        static=static_findings() if static is None else static,
    )


def json_payloads(text: str) -> list[Any]:
    """The JSON documents of the message (each on a line of its own)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith(("[", "{"))]


def keys_and_values(value: Any) -> tuple[set[str], list[Any]]:
    keys: set[str] = set()
    values: list[Any] = []
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            inner_keys, inner_values = keys_and_values(item)
            keys |= inner_keys
            values += [item, *inner_values]
    elif isinstance(value, list):
        for item in value:
            inner_keys, inner_values = keys_and_values(item)
            keys |= inner_keys
            values += [item, *inner_values]
    return keys, values


def test_the_first_message_is_compact_json() -> None:
    text = message()
    files, findings = json_payloads(text)

    for payload in (files, findings):
        assert compact_json(payload) in text.splitlines()
    assert not any(line.startswith(" ") for line in text.splitlines())
    assert files[1] == ["src/auth/tokens.ts", "renamed", "source", 3, 3, "src/tokens.ts"]
    assert files[3] == ["logo.png", "added", "binary", 0, 0]


def test_the_first_message_holds_only_keys_the_model_needs_and_no_empty_values() -> None:
    _, findings = json_payloads(message())
    keys, values = keys_and_values(findings)

    assert keys <= MODEL_KEYS, f"keys the model does not need: {sorted(keys - MODEL_KEYS)}"
    report_only = {"severity", "language", "before", "after", "public_paths", "consumers"}
    report_only |= {"expected_tests", "existing_tests", "coverage", "edges", "score"}
    assert not keys & (report_only | {"directly_changed", "tests_updated", "tier"})
    assert not [value for value in values if value in (None, [], {}, "")]


def test_the_first_message_keeps_what_the_model_must_check() -> None:
    _, findings = json_payloads(message())

    signature, removed = findings["breaking_changes"]
    assert signature == {
        "file": "src/client.py",
        "kind": "changed_signature",
        "detail": "parameter timeout became required",
        "symbols": ["Client.fetch:21", "Client.stream:40"],
        "consumer_files": 2,
    }
    assert removed == {
        "file": "src/client.py",
        "kind": "removed_export",
        "detail": "function removed",
        "symbols": ["legacy_connect:88"],
    }
    assert findings["tests_not_updated"] == ["src/client.py"]
    assert findings["no_tests_found"] == ["src/auth/tokens.ts"]
    assert findings["stale_docs"] == [
        {
            "doc": "docs/usage.md:12",
            "names": "legacy_connect",
            "reason": "removed_symbol",
            "excerpt": "Call `legacy_connect()` first.",
        }
    ]
    assert findings["direct_importers"] == ["src/mod0.py", "src/mod1.py"]
    assert findings["indirectly_affected_files"] == 7
    assert findings["config_changes"] == [[".github/workflows/ci.yml", "ci_build"]]
    assert findings["not_analysed"] == [
        {"path": "src/big.py", "reason": "larger than 1000000 bytes"}
    ]


def test_long_path_lists_become_counts() -> None:
    _, findings = json_payloads(message(static=static_findings(importers=45)))

    assert len(findings["direct_importers"]) == MAX_LISTED_IMPORTERS
    assert findings["direct_importers_not_listed"] == 45 - MAX_LISTED_IMPORTERS


def test_the_first_message_costs_a_fraction_of_the_stored_findings() -> None:
    static = static_findings()
    stored = json.dumps(static.model_dump(mode="json"), indent=1)
    _, findings = json_payloads(message(static=static))

    assert len(compact_json(findings)) * 3 < len(stored)


def test_a_clean_pr_says_so_in_one_line() -> None:
    text = message(static=StaticFindings())

    assert text.splitlines()[-1] == (
        "Static analysis found no breaking changes, test gaps or stale docs."
    )


def test_the_changed_files_are_not_asked_for_again() -> None:
    files = changed()
    strategy = large_pr_strategy(files)
    prompt = system_prompt(strategy)
    offered = [tool.name for tool in agent_tools(strategy)]

    assert CHANGED_FILES_TOOL not in prompt
    assert CHANGED_FILES_TOOL not in offered
    assert CHANGED_FILES_TOOL not in message(files)
    assert "Do not fetch again what you were given." in prompt
    for tool in agent_tools(strategy):
        assert "start" not in tool.description.lower()


def test_past_the_listed_files_the_change_list_tool_is_offered_for_the_rest() -> None:
    files = changed(MAX_CONTEXT_FILES + 25)
    strategy = large_pr_strategy(files)
    prompt = system_prompt(strategy)
    text = message(files)

    assert CHANGED_FILES_TOOL in [tool.name for tool in agent_tools(strategy)]
    assert CHANGED_FILES_TOOL not in prompt, "the first message says when to use it"
    assert len(json_payloads(text)[0]) == MAX_CONTEXT_FILES
    assert f"list_changed_files with offset={MAX_CONTEXT_FILES} returns the other 25" in text


def test_the_large_pr_section_is_sent_only_to_a_large_pr() -> None:
    small = system_prompt(large_pr_strategy(changed()))
    large = system_prompt(large_pr_strategy(changed(60)))
    assert "Large pull requests" not in small and "{large_pr_guidance}" not in small
    assert "# Large pull requests\n" in large and "source files only" in large
