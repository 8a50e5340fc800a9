"""find_importers and list_test_files: reverse dependencies from the cached import graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import run_tool


def _call(reader: GitRepoReader, r: ResolvedRange, tool: str, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(run_tool(reader, r, tool, arguments).text)
    return result


def test_direct_importers(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    found = _call(pr_reader, pr_range, "find_importers", path="pkg/core.py")

    assert [i["path"] for i in found["page"]["items"]] == [
        "pkg/feature.py",
        "pkg/service.py",
        "tests/test_core.py",
    ]
    assert "note" not in found


def test_transitive_importers_come_with_their_distance(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    found = _call(pr_reader, pr_range, "find_importers", path="pkg/core.py", transitive=True)

    distances = {i["path"]: i["distance"] for i in found["page"]["items"]}
    assert distances["pkg/service.py"] == 1
    assert distances["pkg/api.py"] == 2
    assert distances["tests/test_flows.py"] == 3
    assert distances["tests/test_feature.py"] == 2


def test_base_side_and_missing_file_note(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    at_base = _call(pr_reader, pr_range, "find_importers", path="pkg/core.py", ref="base")
    missing = _call(pr_reader, pr_range, "find_importers", path="pkg/old_name.py")

    assert "pkg/feature.py" not in [i["path"] for i in at_base["page"]["items"]]
    assert missing["page"]["items"] == []
    assert "does not exist at head" in missing["note"]


def test_graph_is_cached_beside_the_snapshot(
    pr_reader: GitRepoReader, pr_range: ResolvedRange, prflow_cache: Path
) -> None:
    _call(pr_reader, pr_range, "find_importers", path="pkg/core.py")

    stored = prflow_cache / "snapshots" / pr_range.repo_key / f"{pr_range.head_sha}.imports.json"
    edges = json.loads(stored.read_text())["edges"]
    assert {"importer": "pkg/service.py", "target": "pkg/core.py"}.items() <= next(
        e for e in edges if e["importer"] == "pkg/service.py"
    ).items()


def test_related_tests_by_name_and_by_import(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    core = _call(pr_reader, pr_range, "list_test_files", path="pkg/core.py")
    api = _call(pr_reader, pr_range, "list_test_files", path="pkg/api.py")
    feature = _call(pr_reader, pr_range, "list_test_files", path="pkg/feature.py")

    assert core["tests"] == [{"path": "tests/test_core.py", "changed_in_pr": False}]
    assert api["tests"] == [{"path": "tests/test_flows.py", "changed_in_pr": False}]
    assert feature["tests"] == [{"path": "tests/test_feature.py", "changed_in_pr": True}]
