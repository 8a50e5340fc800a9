"""The ``pr_checks`` workflow: wait for a PR's CI with durable timers, then report failures.

Each look at the checks is one short activity; between looks the workflow
sleeps on a Temporal timer, so a worker restart mid-wait loses nothing and
no activity sits blocked for half an hour. The wait ends when every check is
done, at the first failure with ``bail_on_first``, or at the cap (30
minutes at most). "No CI configured" ends it at once: that is a result.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.github.checks import checks_report_activity, checks_snapshot
    from prflow.pr_tools.checks import ChecksOverview, overview, wait_is_over
    from prflow.pr_tools.checks_report import WaitInfo
    from prflow.pr_tools.kind import WORKFLOW_KIND
    from prflow.pr_tools.run_models import (
        ChecksReportInput,
        ChecksReportRef,
        ChecksSnapshot,
        PrChecksRequest,
    )
    from prflow.run_progress import PhaseState
    from workflows.routing import github_queue
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit

GITHUB_RETRY = NETWORK_RETRY


@workflow.defn(name=WORKFLOW_KIND)
class PrChecksWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, ["wait", "report"])
        self._latest: ChecksOverview | None = None

    @workflow.run
    async def run(self, request: PrChecksRequest) -> ChecksReportRef:
        pr = request.pr
        self.kit.tag(repo=f"{pr.owner}/{pr.repo}", pr=pr.number)
        self.kit.set("wait", PhaseState.running)
        started = workflow.now()
        polls = 0
        while True:
            snapshot = await self._look(request)
            polls += 1
            state = self._latest = overview(snapshot.checks)
            waited = int((workflow.now() - started).total_seconds())
            self.kit.set("wait", PhaseState.running, f"look {polls}: {state.state.value}")
            if wait_is_over(state, bail_on_first=request.bail_on_first):
                timed_out = False
                break
            if waited + request.poll_seconds > request.max_wait_seconds:
                timed_out = True
                break
            await workflow.sleep(timedelta(seconds=request.poll_seconds))
        self.kit.set("wait", PhaseState.done, f"{polls} looks in {waited}s")
        wait = WaitInfo(
            waited_seconds=waited,
            polls=polls,
            timed_out=timed_out,
            bailed=request.bail_on_first and state.failed > 0 and state.pending > 0,
        )
        report: ChecksReportRef = await self.kit.step(
            "report",
            checks_report_activity,
            ChecksReportInput(
                snapshot=snapshot, page=request.page, page_size=request.page_size, wait=wait
            ),
            task_queue=github_queue(request.github_task_queue),
            timeout=timedelta(minutes=5),
            retry=GITHUB_RETRY,
        )
        self.kit.set("report", PhaseState.done, f"{report.failures} failures")
        return report

    async def _look(self, request: PrChecksRequest) -> ChecksSnapshot:
        return await workflow.execute_activity(
            checks_snapshot,
            request.pr,
            task_queue=github_queue(request.github_task_queue),
            start_to_close_timeout=timedelta(minutes=1),
            heartbeat_timeout=timedelta(seconds=10),
            retry_policy=GITHUB_RETRY,
        )

    @workflow.query
    def checks(self) -> ChecksOverview | None:
        """The CI state at the last look (None before the first)."""
        return self._latest
