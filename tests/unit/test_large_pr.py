"""Large-PR shortcuts switch on at 31 and 51 files, and the notes say what was skipped."""

from __future__ import annotations

from prflow.changes import ChangedFile, FileStatus
from prflow.impact.large_pr import files_for_analysis, large_pr_strategy, reads_full_file


def files(count: int, *, lines: int = 10) -> list[ChangedFile]:
    """``count`` files cycling through source, test, doc and config paths."""
    kinds = ("src/mod{}.py", "tests/test_mod{}.py", "docs/page{}.md", "config/app{}.yaml")
    return [
        ChangedFile(
            path=kinds[index % len(kinds)].format(index),
            status=FileStatus.modified,
            additions=lines,
        )
        for index in range(count)
    ]


def test_thirty_files_take_no_shortcuts() -> None:
    changed = files(30)
    strategy = large_pr_strategy(changed)
    assert strategy.read_full_files_only_above_lines is None
    assert not strategy.source_files_only
    assert not strategy.doc_staleness_skipped
    assert strategy.notes == []
    assert files_for_analysis(changed, strategy) == changed
    assert all(reads_full_file(file, strategy) for file in changed)


def test_thirty_one_files_read_only_big_changes_in_full() -> None:
    changed = files(31)
    strategy = large_pr_strategy(changed)
    assert strategy.read_full_files_only_above_lines == 50
    assert not strategy.source_files_only
    assert files_for_analysis(changed, strategy) == changed
    [note] = strategy.notes
    assert "31 files changed" in note and "more than 50 changed lines" in note


def test_full_read_needs_more_than_fifty_changed_lines() -> None:
    strategy = large_pr_strategy(files(31))
    fifty = ChangedFile(path="a.py", status=FileStatus.modified, additions=30, deletions=20)
    fifty_one = fifty.model_copy(update={"deletions": 21})
    assert not reads_full_file(fifty, strategy)
    assert reads_full_file(fifty_one, strategy)


def test_fifty_files_still_analyse_docs() -> None:
    strategy = large_pr_strategy(files(50))
    assert not strategy.source_files_only
    assert not strategy.doc_staleness_skipped


def test_fifty_one_files_keep_only_source_and_skip_doc_staleness() -> None:
    changed = files(51)
    strategy = large_pr_strategy(changed)
    assert strategy.source_files_only
    assert strategy.doc_staleness_skipped
    assert strategy.read_full_files_only_above_lines == 50
    kept = files_for_analysis(changed, strategy)
    assert kept and all(file.path.startswith("src/") for file in kept)
    assert len(kept) == 13
    assert len(strategy.notes) == 2
    assert "38 other files skipped" in strategy.notes[1]
    assert "stale documentation check was not run" in strategy.notes[1]
