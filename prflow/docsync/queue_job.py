"""The docsync request the org-wide queue runs on a PR's head (opt-in ``[docsync]``).

Like impact it reads the whole PR (base..head) and upserts one sticky comment,
so each new head edits the same comment in place.
"""

from __future__ import annotations

from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.docsync.kind import DOCSYNC
from prflow.docsync.models import Thresholds
from prflow.docsync.run_models import AGENT_PHASE, DocsyncRequest
from prflow.queue.jobs import QueueJob
from prflow.queue.repo_config import DocsyncSection


def docsync_job(job: QueueJob, settings: Settings) -> DocsyncRequest:
    section = job.config.docsync or DocsyncSection()
    return DocsyncRequest(
        pull_request=job.pr,
        docs=section.docs,
        thresholds=Thresholds(must_update=section.must_update, review=section.review),
        max_docs=section.max_docs,
        post_comment=job.config.post_comment,
        llm=phase_plan(
            job.settings_for(settings), DOCSYNC, AGENT_PHASE, budget_usd=job.config.budget_usd
        ),
    )
