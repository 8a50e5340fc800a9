"""Shortcuts for large pull requests, so analysis stays within its time and token budget.

Above 30 changed files only files with more than 50 changed lines are read in
full (the rest are judged from their per-file diff); above 50 only source
files are analysed and the documentation staleness check is skipped. The
notes say what was skipped so the report never hides it.
"""

from __future__ import annotations

from prflow.analysis.categories import categorize
from prflow.changes import ChangedFile, FileCategory
from prflow.impact.models import LargePrStrategy

FULL_READ_FILE_COUNT = 30
FULL_READ_MIN_CHANGED_LINES = 50
SOURCE_ONLY_FILE_COUNT = 50


def large_pr_strategy(changed: list[ChangedFile]) -> LargePrStrategy:
    """Which shortcuts apply to a change with these files."""
    count = len(changed)
    strategy = LargePrStrategy(changed_files=count)
    if count > FULL_READ_FILE_COUNT:
        strategy.read_full_files_only_above_lines = FULL_READ_MIN_CHANGED_LINES
        strategy.notes.append(
            f"{count} files changed (more than {FULL_READ_FILE_COUNT}): only files with more "
            f"than {FULL_READ_MIN_CHANGED_LINES} changed lines were read in full; "
            "smaller changes were judged from their diff alone."
        )
    if count > SOURCE_ONLY_FILE_COUNT:
        strategy.source_files_only = True
        strategy.doc_staleness_skipped = True
        skipped = sum(1 for file in changed if _category(file) != FileCategory.source)
        strategy.notes.append(
            f"{count} files changed (more than {SOURCE_ONLY_FILE_COUNT}): only source files "
            f"were analysed ({skipped} other files skipped) and the stale documentation "
            "check was not run."
        )
    return strategy


def files_for_analysis(changed: list[ChangedFile], strategy: LargePrStrategy) -> list[ChangedFile]:
    """The changed files the analyzers should look at under ``strategy``."""
    if not strategy.source_files_only:
        return list(changed)
    return [file for file in changed if _category(file) == FileCategory.source]


def reads_full_file(file: ChangedFile, strategy: LargePrStrategy) -> bool:
    """Whether the analysis may read this file's full contents rather than only its diff."""
    threshold = strategy.read_full_files_only_above_lines
    if threshold is None:
        return True
    return file.additions + file.deletions > threshold


def _category(file: ChangedFile) -> FileCategory:
    # ChangedFile.category defaults to "other" when the producer did not fill it in.
    if file.category != FileCategory.other:
        return file.category
    return categorize(file.path)
