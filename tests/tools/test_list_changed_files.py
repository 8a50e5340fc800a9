"""list_changed_files: shape and paging as the model sees them."""

from __future__ import annotations

import json

from activities.gitrepo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import run_tool


def test_entries_carry_status_counts_and_old_path(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    result = run_tool(pr_reader, pr_range, "list_changed_files", {})
    shown = json.loads(result.text)

    by_path = {item["path"]: item for item in shown["items"]}
    assert by_path["pkg/new_name.py"] == {
        "path": "pkg/new_name.py",
        "status": "renamed",
        "additions": 0,
        "deletions": 0,
        "old_path": "pkg/old_name.py",
    }
    assert by_path["assets/logo.png"]["binary"] is True
    assert "old_path" not in by_path["pkg/core.py"]
    assert shown["total"] == len(shown["items"]) == 10
    assert shown["has_next"] is False


def test_pages_cover_every_file_once(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    seen: list[str] = []
    offset = 0
    pages = 0
    while True:
        page = json.loads(
            run_tool(pr_reader, pr_range, "list_changed_files", {"offset": offset, "limit": 4}).text
        )
        pages += 1
        seen.extend(item["path"] for item in page["items"])
        assert page["total"] == 10
        if not page["has_next"]:
            assert "next_offset" not in page
            break
        offset = page["next_offset"]

    assert pages == 3
    assert len(seen) == len(set(seen)) == 10
