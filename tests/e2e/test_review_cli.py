"""``prflow review`` through the console script: outputs, posting, CI mode, gates, errors."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from prflow.review.render.summary import REVIEW_COMMENT_MARKER
from tests.support.cli_runs import run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.pr_setup import NUMBER, OWNER, REPO, PullRequestSetup
from tests.support.sarif_schema import sarif_schema

pytestmark = pytest.mark.temporal

PR = f"{OWNER}/{REPO}#{NUMBER}"


async def test_json_and_sarif_outputs_and_a_severity_gate(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    out = tmp_path / "review.json"
    run = await run_prflow("review", "--pr", PR, "--no-llm", "-q", "--format", "json",
                           "-o", str(out), "--threshold", "critical", env=pr_setup.env)  # fmt: skip
    assert run.code == 1, run.describe()
    assert run.stderr_lines[-1] == "prflow: 2 findings at or above critical"
    report = json.loads(out.read_text())
    assert report["schema_version"] == "1.0" and report["event"] == "REQUEST_CHANGES"
    assert report["pull_request"] == {"owner": OWNER, "repo": REPO, "number": NUMBER}
    assert fake_github.reviews(OWNER, REPO, NUMBER) == [], "nothing posted without --post"

    sarif = await run_prflow("review", "--pr", PR, "--no-llm", "-q", "--format", "sarif",
                             "--threshold", "100", env=pr_setup.env)  # fmt: skip
    assert sarif.code == 0, sarif.describe()
    log = json.loads(sarif.stdout)
    assert list(jsonschema.Draft7Validator(sarif_schema()).iter_errors(log)) == []
    assert {r["properties"]["severity"] for r in log["runs"][0]["results"]} >= {"critical"}


async def test_ci_mode_reads_the_checkout_posts_once_and_a_rerun_has_nothing_new(
    pr_setup: PullRequestSetup, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    out = tmp_path / "review.json"
    run = await run_prflow("review", "--repo", ".", "--pr", PR, "--post", "-q", "--format",
                           "json", "-o", str(out), env=pr_setup.env, cwd=pr_setup.work)  # fmt: skip
    assert run.code == 0, run.describe()
    report = json.loads(out.read_text())
    assert report["repo"] == str(pr_setup.work.resolve()), "the checkout was read, not a clone"
    assert "posted http" in run.stderr_lines[-1]
    (review,) = fake_github.reviews(OWNER, REPO, NUMBER)
    assert review.state == "CHANGES_REQUESTED"
    assert review.commit_id == report["head_sha"]
    (summary,) = fake_github.comments(OWNER, REPO, NUMBER)
    assert summary.body.startswith(REVIEW_COMMENT_MARKER)
    assert "Static mode" in summary.body

    again = await run_prflow("review", "--repo", ".", "--pr", PR, "--post", "-q",
                             env=pr_setup.env, cwd=pr_setup.work)  # fmt: skip
    assert again.code == 0, again.describe()
    assert "reviewed already" in again.stderr_lines[-1]
    assert len(fake_github.reviews(OWNER, REPO, NUMBER)) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threshold", "101"], "--threshold '101' is neither a risk score"),
        (["--threshold", "severe"], "is neither a risk score from 0 to 100 nor a severity"),
        (["--repo", ".", "--post"], "--post needs --pr"),
        (["--pr", "not-a-pr"], "Not a pull request identifier"),
        (["--depth", "shallow"], "shallow"),
    ],
)
async def test_a_user_mistake_is_one_line_and_exit_2(
    pr_without_worker: PullRequestSetup, args: list[str], message: str
) -> None:
    setup = pr_without_worker
    run = await run_prflow("review", *args, "-q", env=setup.env, cwd=setup.work)
    assert run.code == 2, run.describe()
    assert len(run.stderr_lines) == 1 and message in run.stderr_lines[0], run.describe()
    assert "Traceback" not in run.stderr
