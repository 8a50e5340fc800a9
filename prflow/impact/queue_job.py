"""The impact request the org-wide queue runs on a PR's head.

Impact always scores the whole pull request (base..head), whatever ran
before: a risk score is a property of the PR, not of the latest push. The
comment it posts is upserted, so each new head edits the same comment.
"""

from __future__ import annotations

from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.impact.kind import IMPACT
from prflow.impact.run_models import LLM_PHASE, ImpactRequest
from prflow.queue.jobs import QueueJob


def impact_job(job: QueueJob, settings: Settings) -> ImpactRequest:
    job_settings = job.settings_for(settings)
    return ImpactRequest(
        pull_request=job.pr,
        pr_head_sha=job.head_sha,
        post_comment=job.config.post_comment,
        llm=phase_plan(job_settings, IMPACT, LLM_PHASE, budget_usd=job.config.budget_usd),
        deadline_seconds=job_settings.budget.deadline,
    )
