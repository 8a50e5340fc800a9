"""Test-run inputs and results: small, with the bulky parts (output, outcomes) by blob key."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from prflow.sandbox.models import SandboxKind, SandboxMode, SandboxReport
from prflow.workspace.models import WorkspaceRef


class Outcome(StrEnum):
    passed = "passed"
    failed = "failed"
    error = "error"
    skipped = "skipped"


class TestOutcome(BaseModel):
    """One test case as the JUnit report gives it."""

    __test__ = False  # not a pytest class

    id: str = Field(description="classname::name, stable between runs")
    outcome: Outcome
    seconds: float = 0.0
    message: str = ""
    file: str = Field(default="", description="The test's file, when the report names it")

    @property
    def failing(self) -> bool:
        return self.outcome in (Outcome.failed, Outcome.error)


class TestCounts(BaseModel):
    __test__ = False

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors + self.skipped


class ResultBasis(StrEnum):
    """What a run's outcome was read from, best first."""

    junit = "junit"
    """Per test, from the runner's JUnit report."""
    summary = "summary"
    """The runner's summary line (counts, no test names)."""
    exit_status = "exit_status"
    """Only the command's exit status: neither a report nor a summary line came back."""


class TestRunInput(BaseModel):
    """Run the workspace's tests (all, or a selection) without network, within a time cap."""

    __test__ = False

    workspace: WorkspaceRef
    command: str | None = Field(
        default=None,
        description="The user's command, run by ``sh -c`` from the root; None: detected",
    )
    selection: list[str] = Field(
        default_factory=list, description="Test files or ids to run (appended); empty: all"
    )
    timeout_seconds: float = Field(default=900, gt=0)
    install_timeout_seconds: float = Field(default=900, gt=0)
    allow_unsandboxed: bool = False
    sandbox: SandboxMode | None = Field(
        default=None, description="bwrap, network-only or none; None: the worker's [sandbox] mode"
    )


class TestRunResult(BaseModel):
    """How the run went; per-test outcomes and the full output live in the blob store."""

    __test__ = False

    sandbox: SandboxKind
    command: list[str]
    exit_code: int | None = Field(description="None when the time cap killed the run")
    timed_out: bool = False
    counts: TestCounts = Field(default_factory=TestCounts)
    outcomes_key: str | None = Field(description="JSON list of TestOutcome; None: no report")
    output_key: str
    env_hash: str
    seconds: float
    sandbox_report: SandboxReport | None = Field(
        default=None, description="Which sandbox ran the tests and what it isolated"
    )
    limit_hit: str | None = Field(
        default=None, description="A bound that stopped the run early ('output'); see the output"
    )
    basis: ResultBasis = ResultBasis.junit
    summary: list[str] = Field(
        default_factory=list, description="The runner's summary lines, as printed"
    )
    tests_found: int | None = Field(
        default=None, description="Tests the run reported (0: none found); None: cannot tell"
    )
    output_tail: str = Field(default="", description="The last lines of the output")
    selection_applied: bool = Field(
        default=True, description="False: the command cannot take a selection and ran whole"
    )


class TestComparison(BaseModel):
    """Before/after per test. A test failing in both runs is not a regression."""

    __test__ = False

    regressions: list[str] = Field(default_factory=list, description="Passed before, fail after")
    new_failures: list[str] = Field(default_factory=list, description="New tests that fail")
    fixed: list[str] = Field(default_factory=list)
    still_failing: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list, description="Ran before, not after")
    pass_rate_after: float = Field(description="Share of the tests run after that passed")
    files: dict[str, str] = Field(
        default_factory=dict, description="The file of each test listed above, where known"
    )

    @property
    def ok(self) -> bool:
        return not self.regressions and not self.new_failures


class CompareInput(BaseModel):
    before_outcomes_key: str
    after_outcomes_key: str
