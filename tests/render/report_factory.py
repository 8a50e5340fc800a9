"""Builds impact reports for renderer tests: one realistic report, tweakable per test."""

from __future__ import annotations

from typing import Any

from prflow.analysis.findings import (
    BreakingChange,
    BreakingKind,
    ConfigChange,
    ConfigTier,
    CoverageSummary,
    ImpactGraph,
    StaleDocRef,
    StaleReason,
    TestGap,
)
from prflow.changes import ChangedFile, FileCategory, FileStatus, Totals
from prflow.impact.models import (
    FindingCategory,
    ImpactReport,
    LargePrStrategy,
    LlmFinding,
    LlmOutcome,
    LlmStatus,
)
from prflow.impact.scoring import assess_risk
from prflow.pr_identifier import PullRequestRef
from prflow.severity import Severity


def changed_files() -> list[ChangedFile]:
    return [
        ChangedFile(
            path="src/client.py",
            status=FileStatus.modified,
            additions=40,
            deletions=12,
            category=FileCategory.source,
        ),
        ChangedFile(
            path="src/auth/tokens.ts",
            status=FileStatus.renamed,
            old_path="src/tokens.ts",
            additions=3,
            deletions=3,
            category=FileCategory.source,
        ),
        ChangedFile(
            path=".github/workflows/ci.yml",
            status=FileStatus.modified,
            additions=2,
            deletions=1,
            category=FileCategory.config,
        ),
    ]


def breaking_changes() -> list[BreakingChange]:
    return [
        BreakingChange(
            file="src/client.py",
            symbol="Client.fetch",
            kind=BreakingKind.changed_signature,
            severity=Severity.medium,
            language="python",
            detail="parameter timeout became required",
            before="def fetch(self, url, timeout=None)",
            after="def fetch(self, url, timeout)",
            line=21,
            consumers=["src/app.py", "src/jobs/sync.py"],
        ),
        BreakingChange(
            file="src/client.py",
            symbol="legacy_connect",
            kind=BreakingKind.removed_export,
            severity=Severity.high,
            language="python",
            detail="function removed",
            line=88,
        ),
    ]


def llm_outcome(status: LlmStatus = LlmStatus.completed, reason: str = "") -> LlmOutcome:
    if status is LlmStatus.skipped:
        return LlmOutcome(status=status, reason=reason or "no model configured")
    return LlmOutcome(
        status=status,
        reason=reason,
        model="claude-sonnet-5-5",
        summary="The fetch signature change ripples into the sync job.",
        recommendations=["Give `timeout` a default again, or update `src/jobs/sync.py`."],
        findings=[
            LlmFinding(
                title="Sync job calls fetch without timeout",
                category=FindingCategory.breaking,
                severity=Severity.medium,
                file="src/jobs/sync.py",
                line=14,
                evidence="client.fetch(url)",
                explanation="The call omits the now-required timeout argument.",
            )
        ],
        rejected_findings=["Made-up finding: src/nope.py does not exist at head"],
        iterations=7,
        cost_usd=0.0421,
    )


def make_report(**overrides: Any) -> ImpactReport:
    """A report touching every section; keyword arguments replace fields."""
    files = overrides.pop("changed_files", changed_files())
    breaking = overrides.pop("breaking_changes", breaking_changes())
    coverage = overrides.pop(
        "coverage", CoverageSummary(changed_source_files=2, with_test_updates=1)
    )
    stale = overrides.pop(
        "stale_docs",
        [
            StaleDocRef(
                doc_file="docs/usage.md",
                line=12,
                target="legacy_connect",
                reason=StaleReason.removed_symbol,
                excerpt="Call `legacy_connect()` first.",
            )
        ],
    )
    config = overrides.pop(
        "config_changes",
        [ConfigChange(path=".github/workflows/ci.yml", tier=ConfigTier.ci_build, score=100)],
    )
    graph = overrides.pop(
        "impact_graph",
        ImpactGraph(
            directly_changed=["src/client.py", "src/auth/tokens.ts"],
            direct_importers=["src/app.py", "src/jobs/sync.py"],
            indirectly_affected=["src/app.py", "src/jobs/sync.py"],
        ),
    )
    lines = sum(file.additions + file.deletions for file in files)
    fields: dict[str, Any] = {
        "repo": "acme/widgets",
        "base_ref": "main",
        "head_ref": "feature/fetch-timeout",
        "base_sha": "a" * 40,
        "head_sha": "b" * 40,
        "pull_request": PullRequestRef(owner="acme", repo="widgets", number=42),
        "totals": Totals(
            files=len(files),
            additions=sum(file.additions for file in files),
            deletions=sum(file.deletions for file in files),
        ),
        "changed_files": files,
        "breaking_changes": breaking,
        "test_gaps": [
            TestGap(
                source_file="src/client.py",
                expected_tests=["tests/test_client.py"],
                existing_tests=["tests/test_client.py"],
                tests_updated=False,
            ),
            TestGap(
                source_file="src/auth/tokens.ts",
                expected_tests=["src/auth/tokens.test.ts"],
                existing_tests=[],
                tests_updated=False,
            ),
        ],
        "coverage": coverage,
        "stale_docs": stale,
        "impact_graph": graph,
        "config_changes": config,
        "large_pr": LargePrStrategy(changed_files=len(files)),
        "risk": assess_risk(
            breaking=breaking,
            coverage=coverage,
            total_changed_lines=lines,
            stale_docs=len(stale),
            config=config,
            direct_importers=len(graph.direct_importers),
        ),
        "llm": llm_outcome(),
        "workflow_id": "impact-acme-widgets-42",
    }
    fields.update(overrides)
    return ImpactReport(**fields)
