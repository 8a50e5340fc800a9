"""CI state of a commit from its check runs and commit statuses, and when waiting may stop.

GitHub reports CI two ways: check runs (GitHub Actions and most apps) and
the older commit statuses. Both count. A commit with neither has no CI:
that is an answer ("no_ci"), not an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

FAILING_CONCLUSIONS = frozenset(
    {"failure", "timed_out", "cancelled", "action_required", "startup_failure"}
)
FAILING_STATUSES = frozenset({"failure", "error"})
NO_CI_MESSAGE = (
    "No CI checks found for this commit. Add a workflow under .github/workflows/ that runs "
    "the tests on pull_request to get check results here."
)


class CiState(StrEnum):
    passed = "passed"
    failed = "failed"
    pending = "pending"
    no_ci = "no_ci"


class CheckKind(StrEnum):
    check_run = "check_run"
    status = "status"


class CheckInfo(BaseModel):
    """One check run or commit status, reduced to what deciding and reporting need."""

    name: str
    kind: CheckKind
    status: str = Field(description="Check runs: queued/in_progress/completed; statuses: state")
    conclusion: str | None = None
    url: str | None = None
    job_id: int | None = Field(None, description="GitHub Actions job whose log can be read")

    @property
    def failing(self) -> bool:
        if self.kind == CheckKind.status:
            return self.status in FAILING_STATUSES
        return self.status == "completed" and self.conclusion in FAILING_CONCLUSIONS

    @property
    def pending(self) -> bool:
        if self.kind == CheckKind.status:
            return self.status == "pending"
        return self.status != "completed"


class ChecksOverview(BaseModel):
    state: CiState
    total: int
    passed: int
    failed: int
    pending: int
    failing: list[str] = Field(description="Names of failing checks")
    waiting_on: list[str] = Field(description="Names of checks still running or queued")


def overview(checks: Sequence[CheckInfo]) -> ChecksOverview:
    """Counts and the overall state: any failure fails, else anything running is pending."""
    failing = [c.name for c in checks if c.failing]
    waiting = [c.name for c in checks if c.pending]
    if not checks:
        state = CiState.no_ci
    elif failing:
        state = CiState.failed
    elif waiting:
        state = CiState.pending
    else:
        state = CiState.passed
    return ChecksOverview(
        state=state,
        total=len(checks),
        passed=len(checks) - len(failing) - len(waiting),
        failed=len(failing),
        pending=len(waiting),
        failing=failing,
        waiting_on=waiting,
    )


def wait_is_over(state: ChecksOverview, *, bail_on_first: bool) -> bool:
    """Whether a waiting caller has its answer: every check done, or (bailing) one failed."""
    if state.state in (CiState.no_ci, CiState.passed):
        return True
    if state.pending == 0:
        return True
    return bail_on_first and state.failed > 0
