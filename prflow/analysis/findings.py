"""What the static analyzers find: breaking changes, test gaps, stale docs, the impact graph
and config tiers. Pure data, shared by the impact report and the review synthesis.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from prflow.severity import Severity


class BreakingKind(StrEnum):
    removed_export = "removed_export"
    renamed_export = "renamed_export"
    changed_signature = "changed_signature"
    changed_type = "changed_type"


SEVERITY_BY_KIND: dict[BreakingKind, Severity] = {
    BreakingKind.removed_export: Severity.high,
    BreakingKind.renamed_export: Severity.high,
    BreakingKind.changed_signature: Severity.medium,
    BreakingKind.changed_type: Severity.low,
}


Language = Literal["python", "javascript", "typescript"]

STILL_DEFINED = "still defined as"
"""How a removal's detail says the name lives on elsewhere in the package: impact writes it
(:func:`still_defined_note`), doc sync reads it to count only mentions through the old path."""


def still_defined_note(path: str) -> str:
    """The detail's closing note for a name that left one place but is still ``path``."""
    return f"(it is {STILL_DEFINED} `{path}`)"


MODULE_DETAIL = "module "
"""How a detail opens when the finding is about a whole module (``module `x` was removed``):
impact writes it, doc sync reads it to tell a module from an object named like its module."""


class BreakingChange(BaseModel):
    """A change to a public symbol that can break code importing it."""

    file: str
    symbol: str = Field(description="Dotted/qualified name, e.g. 'Client.fetch'")
    kind: BreakingKind
    severity: Severity
    language: Language
    detail: str = Field(
        description="One line a reviewer can read, e.g. 'parameter timeout became required'"
    )
    before: str | None = Field(default=None, description="Signature or declaration at base")
    after: str | None = Field(default=None, description="Signature or declaration at head")
    new_name: str | None = Field(default=None, description="For renames: the symbol's new name")
    line: int | None = Field(
        default=None, description="1-based line at head (at base when removed)"
    )
    consumers: list[str] = Field(default_factory=list, description="Files that use the symbol")
    public_paths: list[str] = Field(
        default_factory=list,
        description="Import paths through which callers reach the symbol, e.g. 'httpx.Client'",
    )


class NotAnalysed(BaseModel):
    """A file or object the analyzers skipped, with why: listed in the report, never guessed."""

    path: str
    symbol: str | None = Field(default=None, description="The object, when not the whole file")
    reason: str = Field(description="e.g. 'larger than 1000000 bytes', 'syntax error line 3'")


class TestGap(BaseModel):
    """A changed source file and what we know about its tests."""

    source_file: str
    expected_tests: list[str] = Field(description="Test paths the naming conventions predict")
    existing_tests: list[str] = Field(description="Tests found at head, by name or by import")
    tests_updated: bool = Field(
        description="True when one of the existing tests changed in this PR"
    )

    @property
    def test_exists(self) -> bool:
        return bool(self.existing_tests)


class CoverageSummary(BaseModel):
    changed_source_files: int = 0
    with_test_updates: int = 0

    @property
    def ratio(self) -> float:
        """Share of changed source files whose tests changed too (1.0 when none changed)."""
        if self.changed_source_files == 0:
            return 1.0
        return self.with_test_updates / self.changed_source_files


class StaleReason(StrEnum):
    removed_symbol = "removed_symbol"
    renamed_symbol = "renamed_symbol"
    deleted_path = "deleted_path"
    renamed_path = "renamed_path"


class StaleDocRef(BaseModel):
    doc_file: str
    line: int
    target: str = Field(description="The symbol or path the doc names")
    reason: StaleReason
    excerpt: str = Field(description="The doc line, trimmed")
    replacement: str | None = Field(default=None, description="New name or path when known")


class ImpactEdge(BaseModel):
    importer: str
    imported: str


class ImpactGraph(BaseModel):
    directly_changed: list[str] = Field(default_factory=list)
    direct_importers: list[str] = Field(
        default_factory=list,
        description="Files importing a changed file directly, not changed themselves",
    )
    indirectly_affected: list[str] = Field(
        default_factory=list,
        description="Transitive importers of changed files, not changed themselves",
    )
    edges: list[ImpactEdge] = Field(default_factory=list)


class ConfigTier(StrEnum):
    ci_build = "ci_build"
    deploy = "deploy"
    other = "other"
    env_or_lock = "env_or_lock"


CONFIG_TIER_SCORE: dict[ConfigTier, int] = {
    ConfigTier.ci_build: 100,
    ConfigTier.deploy: 75,
    ConfigTier.other: 50,
    ConfigTier.env_or_lock: 25,
}


class ConfigChange(BaseModel):
    path: str
    tier: ConfigTier
    score: int
