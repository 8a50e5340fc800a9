"""The review request the org-wide queue runs on a PR's new head.

The review itself finds what it already reviewed (the sticky comment's hidden
state and the store) and reviews only the commits since, so the queue needs to
pass nothing but the PR and the repository's settings.
"""

from __future__ import annotations

from prflow.config import Settings
from prflow.queue.jobs import QueueJob
from prflow.review.request import review_request
from prflow.review.run_models import ReviewRequest


def review_job(job: QueueJob, settings: Settings) -> ReviewRequest:
    on_queues = job.settings_for(settings)
    request = review_request(on_queues, job.pr, post=job.config.post_comment)
    request.pr_head_sha = job.head_sha  # the CLI names a run of this head the same way
    if job.config.budget_usd is not None:
        # A repository's budget caps each model phase (the plans are per phase).
        for plan in request.plans.values():
            plan.caps.usd = min(plan.caps.usd, job.config.budget_usd)
    return request
