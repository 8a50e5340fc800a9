"""The PR tools as the CLI and the MCP server call them: one GitHub read each, no workflow.

Mistakes the user must fix come out as :class:`~prflow.errors.UserError`;
transient GitHub failures stay retryable ``ApplicationError`` for the caller
to report (they have no Temporal retry here: the caller is interactive).
"""

from __future__ import annotations

from collections.abc import Iterable

from activities.github.checks import build_report, read_checks
from activities.github.errors import user_errors_raised
from activities.github.review_threads import fetch_review_threads
from activities.github.stack import read_stack
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.checks_report import ChecksReport
from prflow.pr_tools.review_threads import UnresolvedThreads, unresolved_report
from prflow.pr_tools.stack import StackPlan


def unresolved_comments(
    ref: PullRequestRef, *, exclude_authors: Iterable[str], page: int, page_size: int
) -> UnresolvedThreads:
    threads = user_errors_raised(lambda: fetch_review_threads(ref))
    return unresolved_report(
        ref.slug, threads, exclude_authors=exclude_authors, page=page, page_size=page_size
    )


def failing_checks(ref: PullRequestRef, *, page: int, page_size: int) -> ChecksReport:
    snapshot = user_errors_raised(lambda: read_checks(ref))
    return user_errors_raised(lambda: build_report(snapshot, page=page, page_size=page_size))


def stack_plan(ref: PullRequestRef) -> StackPlan:
    return user_errors_raised(lambda: read_stack(ref))
