"""The answer of ``prflow pr checks``: CI state, failing checks, parsed failures, commands.

Failures are paged (ten per page by default: each carries a message and a
command) and the commands of the page are listed once, ready to paste.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from prflow.pr_tools.checks import NO_CI_MESSAGE, CheckInfo, ChecksOverview, CiState, overview
from prflow.pr_tools.ci_logs import TestFailure
from prflow.pr_tools.pagination import Paged, paginate

DEFAULT_PAGE_SIZE = 10
NO_LOG_NOTE = "no job log available (not a GitHub Actions job, or the log expired)"
NOTHING_PARSED_NOTE = "no pytest, jest, vitest or go test failure recognised in the job log"


class CheckFailure(TestFailure):
    check: str = Field(description="The failing check whose log named this test")


class FailingCheck(BaseModel):
    name: str
    url: str | None
    conclusion: str | None
    failures: int = Field(description="Test failures parsed from its log")
    note: str | None = Field(None, description="Why no failures are listed, when none are")


class WaitInfo(BaseModel):
    waited_seconds: int
    polls: int
    timed_out: bool = Field(description="True when the wait cap ran out first")
    bailed: bool = Field(description="True when it stopped at the first failure")


class ChecksReport(BaseModel):
    pr: str
    head_sha: str
    state: CiState
    summary: str
    overview: ChecksOverview
    failing_checks: list[FailingCheck]
    failures: Paged[CheckFailure]
    commands: list[str] = Field(description="Re-run commands for the failures on this page")
    wait: WaitInfo | None = None


def checks_report(
    slug: str,
    head_sha: str,
    checks: Sequence[CheckInfo],
    parsed: Mapping[str, list[TestFailure] | None],
    *,
    page: int = 1,
    page_size: int = DEFAULT_PAGE_SIZE,
    wait: WaitInfo | None = None,
) -> ChecksReport:
    """``parsed`` maps a failing check's name to its log's failures (None: no log)."""
    state = overview(checks)
    failing: list[FailingCheck] = []
    failures: list[CheckFailure] = []
    for check in checks:
        if not check.failing:
            continue
        found = parsed.get(check.name)
        failing.append(
            FailingCheck(
                name=check.name,
                url=check.url,
                conclusion=check.conclusion or check.status,
                failures=len(found or []),
                note=NO_LOG_NOTE if found is None else (None if found else NOTHING_PARSED_NOTE),
            )
        )
        failures += [CheckFailure(check=check.name, **f.model_dump()) for f in found or []]
    paged = paginate(failures, page, page_size)
    commands = list(dict.fromkeys(f.rerun for f in paged.items))
    return ChecksReport(
        pr=slug,
        head_sha=head_sha,
        state=state.state,
        summary=_summary(state, len(failures), wait),
        overview=state,
        failing_checks=failing,
        failures=paged,
        commands=commands,
        wait=wait,
    )


def _summary(state: ChecksOverview, failures: int, wait: WaitInfo | None) -> str:
    if state.state == CiState.no_ci:
        return NO_CI_MESSAGE
    counts = f"{state.passed} passed, {state.failed} failed, {state.pending} pending"
    if state.state == CiState.failed:
        tests = f"{failures} failing test{'s' if failures != 1 else ''} found in the logs"
        text = f"CI failed ({counts}); {tests}."
    elif state.state == CiState.pending:
        text = f"CI still running ({counts})."
    else:
        text = f"CI passed ({counts})."
    if wait is not None and wait.timed_out:
        text += f" Stopped waiting after {wait.waited_seconds} s (the wait cap)."
    elif wait is not None and wait.bailed:
        text += " Stopped at the first failure (bail on first)."
    return text
