"""The opt-in ``[docsync]`` section: doc sync runs after impact with the repository's settings."""

from __future__ import annotations

import pytest

from prflow.config import Settings
from prflow.docsync.queue_job import docsync_job
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from prflow.queue.jobs import QueueJob, build_request, queue_kinds
from prflow.queue.repo_config import parse_repo_config
from prflow.queue.state import QueueNames
from prflow.registry import KINDS

KNOWN = list(queue_kinds(KINDS))


def test_docsync_is_opt_in_and_runs_after_impact() -> None:
    assert "docsync" not in parse_repo_config(None, KNOWN).jobs_to_run(["impact"])
    config = parse_repo_config('jobs = ["docsync", "impact"]\n[docsync]\n', KNOWN)
    assert config.jobs_to_run(["impact"]) == ["impact", "docsync"]
    off = parse_repo_config("[docsync]\nenabled = false\n", KNOWN)
    assert off.jobs_to_run(["impact"]) == ["impact"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[docsync]\ndocz = []\n", "unknown key 'docsync.docz'; the keys are: enabled, docs"),
        ("[docsync]\nmust_update = 0.2\nreview = 0.5\n", "review must not exceed must_update"),
    ],
)
def test_a_bad_docsync_section_is_one_line(text: str, message: str) -> None:
    with pytest.raises(UserError, match="docsync") as caught:
        parse_repo_config(text, KNOWN)
    assert message in caught.value.message
    assert "\n" not in caught.value.message


def test_the_queue_builds_a_posting_docsync_request_from_the_section() -> None:
    config = parse_repo_config(
        'budget_usd = 0.1\n[docsync]\ndocs = ["guide/*.md"]\nmust_update = 0.9\nmax_docs = 3\n',
        KNOWN,
    )
    job = QueueJob(
        pr=PullRequestRef(owner="acme", repo="api", number=7),
        head_sha="b" * 40,
        base_sha="a" * 40,
        clone_url="https://github.com/acme/api.git",
        config=config,
        queues=QueueNames(main="m", llm="l", github="g"),
    )
    request = docsync_job(job, Settings())
    assert request.docs == ["guide/*.md"]
    assert request.thresholds.must_update == 0.9
    assert request.max_docs == 3
    assert request.post_comment is True
    assert request.llm.caps.usd == 0.1
    # routed by the queue workflow's memo when it starts the job, not by the request
    assert request.llm.task_queue is None and request.github_task_queue is None
    kind = next(k for k in KINDS if k.name == "docsync")
    assert build_request(kind, job, Settings())["pull_request"]["number"] == 7
