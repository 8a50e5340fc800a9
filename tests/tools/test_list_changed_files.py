"""list_changed_files: shape and paging as the model sees them."""

from __future__ import annotations

from prflow.git.repo import GitRepoReader
from prflow.repo_models import ResolvedRange
from prflow.tools import run_tool


def test_entries_carry_status_counts_and_old_path(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    result = run_tool(pr_reader, pr_range, "list_changed_files", {})
    shown = result.data["page"]

    by_path = {item["path"]: item for item in shown["items"]}
    assert by_path["pkg/new_name.py"] == {
        "path": "pkg/new_name.py",
        "status": "renamed",
        "additions": 0,
        "deletions": 0,
        "old_path": "pkg/old_name.py",
        "binary": None,
    }
    assert by_path["assets/logo.png"]["binary"] is True
    assert by_path["pkg/core.py"]["old_path"] is None
    assert shown["total"] == len(shown["items"]) == 10
    assert shown["has_next"] is False


def test_pages_cover_every_file_once(pr_reader: GitRepoReader, pr_range: ResolvedRange) -> None:
    seen: list[str] = []
    offset = 0
    pages = 0
    while True:
        page = run_tool(
            pr_reader, pr_range, "list_changed_files", {"offset": offset, "limit": 4}
        ).data["page"]
        pages += 1
        seen.extend(item["path"] for item in page["items"])
        assert page["total"] == 10
        if not page["has_next"]:
            assert page["next_offset"] is None
            break
        offset = page["next_offset"]

    assert pages == 3
    assert len(seen) == len(set(seen)) == 10


def test_the_model_reads_one_line_per_file(
    pr_reader: GitRepoReader, pr_range: ResolvedRange
) -> None:
    lines = run_tool(pr_reader, pr_range, "list_changed_files", {"limit": 20}).text.splitlines()
    assert "renamed pkg/old_name.py -> pkg/new_name.py +0 -0" in lines
    assert any(line.startswith("added ") or line.startswith("modified ") for line in lines)
    assert any(line.endswith("assets/logo.png binary") for line in lines)
    assert lines[-1] == "files 1-10 of 10"
