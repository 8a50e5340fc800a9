"""Test coverage gaps: changed source files whose tests did not change with them."""

from __future__ import annotations

from prflow.analysis.findings import CoverageSummary, TestGap
from prflow.analysis.test_mapping import (
    TestFiles,
    TestLayout,
    expected_test_paths,
    find_related_tests,
)
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import ImportGraph
from prflow.source_tree import SourceTree


def find_test_gaps(
    changed: list[ChangedFile], head: SourceTree, graph: ImportGraph
) -> tuple[list[TestGap], CoverageSummary]:
    """One :class:`TestGap` per changed (not deleted) source file, and the coverage ratio.

    A source file counts as having test updates when one of its existing tests,
    or a test at a conventional path (a new test file), is among the changed files.
    ``graph`` is the head import graph.
    """
    changed_paths = {item.path for item in changed}
    layout = TestLayout(head.paths())
    tests = TestFiles.of(head)
    gaps: list[TestGap] = []
    for item in changed:
        if item.category != FileCategory.source or item.status == FileStatus.deleted:
            continue
        expected = expected_test_paths(item.path, layout)
        existing = find_related_tests(item.path, head, graph, tests)
        updated = any(path in changed_paths for path in [*existing, *expected])
        gaps.append(
            TestGap(
                source_file=item.path,
                expected_tests=expected,
                existing_tests=existing,
                tests_updated=updated,
            )
        )
    gaps.sort(key=lambda gap: gap.source_file)
    summary = CoverageSummary(
        changed_source_files=len(gaps),
        with_test_updates=sum(1 for gap in gaps if gap.tests_updated),
    )
    return gaps, summary
