"""The GitHub Action, run step by step against a loopback GitHub: it installs prflow from its
own checkout, analyses the checked-out repository and comments on the pull request under test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from prflow.docsync.run_models import DOCSYNC_COMMENT_MARKER
from prflow.impact.render.comment import IMPACT_COMMENT_MARKER
from prflow.review.render.summary import REVIEW_COMMENT_MARKER
from tests.action.composite import StepRun, load_action, run_composite
from tests.support.cli_runs import embedded_environment, free_port
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_TOKEN
from tests.support.sample_repos import build_sample_repo, git

pytestmark = pytest.mark.temporal

ROOT = Path(__file__).resolve().parents[2]
ACTION_DIR = ROOT / "deploy" / "github-action"
_NOT_IN_A_CHECKOUT = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", "tests", "bench"
)


def _action_checkout(tmp_path: Path) -> Path:
    """The runner clones the action's repository apart from the workspace: so do we (pip
    builds in the source tree, which must not be this one)."""
    checkout = tmp_path / "_actions" / "OWNER" / "prflow" / "v0"
    shutil.copytree(ROOT, checkout, ignore=_NOT_IN_A_CHECKOUT)
    return checkout / "deploy" / "github-action"


OWNER, REPO, NUMBER = "octo-org", "shop", 7


@pytest.fixture(scope="module")
def runner_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What setup-python gives the job: a Python with pip and nothing of prflow installed.

    prflow's dependencies are made visible (a .pth to this environment's site-packages,
    and this environment's scripts, such as the ``temporal`` binary, at the end of PATH)
    so the install step builds and installs prflow itself without downloading them all.
    One runner Python serves the module's jobs (making one costs about 15 s): each job
    still runs the action's install step, which builds and installs prflow again.
    """
    venv = tmp_path_factory.mktemp("runner") / "runner-python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = (
        venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    )
    (site / "prflow-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def _checkout(tmp_path: Path, fake: FakeGitHub) -> Path:
    """The repository under test with PR #7 open, checked out as actions/checkout would."""
    source = build_sample_repo(tmp_path / "shop-src")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    fake.add_pull_request(
        OWNER,
        REPO,
        NUMBER,
        bare_repo_path=bare,
        base_sha=git(source, "rev-parse", "main"),
        head_sha=git(source, "rev-parse", "feature"),
    )
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", str(bare), str(workspace))
    git(workspace, "checkout", "-q", "feature")
    return workspace


def _run_action(
    tmp_path: Path, fake: FakeGitHub, workspace: Path, bin_dir: Path, **inputs: str
) -> list[StepRun]:
    env = embedded_environment(tmp_path / "home", free_port(), free_port())
    env |= {
        "PATH": os.pathsep.join([str(bin_dir), env["PATH"], str(Path(sys.executable).parent)]),
        "GITHUB_REPOSITORY": f"{OWNER}/{REPO}",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTIONS": "true",
    }
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "PRFLOW_GITHUB_API_URL", "VIRTUAL_ENV"):
        env.pop(name, None)
    github = {
        "api_url": fake.api_url,
        "workspace": str(workspace),
        "repository": f"{OWNER}/{REPO}",
        "event": {"pull_request": {"number": NUMBER}},
    }
    return run_composite(
        _action_checkout(tmp_path),
        {"github-token": FAKE_GITHUB_TOKEN} | inputs,
        github,
        env,
        stand_ins=frozenset({"actions/setup-python"}),
    )


def test_the_action_installs_from_its_checkout_and_comments_on_the_pr(
    fake_github: FakeGitHub, tmp_path: Path, runner_bin: Path
) -> None:
    workspace = _checkout(tmp_path, fake_github)
    bin_dir = runner_bin

    steps = _run_action(tmp_path, fake_github, workspace, bin_dir, threshold="100")

    install, analyse = steps
    assert install.code == 0, install.stderr
    assert (bin_dir / "prflow").is_file(), "prflow was installed into the runner's Python"
    installed = subprocess.run(
        [str(bin_dir / "python"), "-c", "import prflow; print(prflow.__file__)"],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert installed.startswith(str(bin_dir.parent)), "prflow ran from the action's install"
    assert analyse.code == 0, f"{analyse.stdout}\n{analyse.stderr}"
    assert "running static analysis only" in analyse.stdout
    (comment,) = fake_github.comments(OWNER, REPO, NUMBER)
    assert comment.body.startswith(IMPACT_COMMENT_MARKER)
    assert "# PR Impact Report" in comment.body
    assert f"**{OWNER}/{REPO}#{NUMBER}**" in comment.body
    sarif = json.loads((workspace / "prflow-impact.sarif").read_text())
    assert sarif["version"] == "2.1.0"


def test_review_mode_posts_one_review_and_a_summary_comment(
    fake_github: FakeGitHub, tmp_path: Path, runner_bin: Path
) -> None:
    workspace = _checkout(tmp_path, fake_github)
    bin_dir = runner_bin

    steps = _run_action(tmp_path, fake_github, workspace, bin_dir, mode="review")

    install, analyse = steps
    assert install.code == 0, install.stderr
    assert analyse.code == 0, f"{analyse.stdout}\n{analyse.stderr}"
    (review,) = fake_github.reviews(OWNER, REPO, NUMBER)
    assert review.state == "CHANGES_REQUESTED" and "prflow review" in review.body
    assert fake_github.review_comments(OWNER, REPO, NUMBER), "inline comments on the diff"
    assert all(p.status == 200 for p in fake_github.requests("POST", r"/reviews$"))
    (summary,) = fake_github.comments(OWNER, REPO, NUMBER)
    assert summary.body.startswith(REVIEW_COMMENT_MARKER)
    sarif = json.loads((workspace / "prflow-impact.sarif").read_text())
    assert sarif["runs"][0]["properties"]["reviewEvent"] == "REQUEST_CHANGES"


def test_docsync_mode_posts_its_comment_and_gates_on_a_bucket(
    fake_github: FakeGitHub, tmp_path: Path, runner_bin: Path
) -> None:
    workspace = _checkout(tmp_path, fake_github)
    bin_dir = runner_bin

    steps = _run_action(
        tmp_path, fake_github, workspace, bin_dir, mode="docsync", threshold="must_update"
    )

    install, analyse = steps
    assert install.code == 0, install.stderr
    assert analyse.code == 1, f"{analyse.stdout}\n{analyse.stderr}"  # docs/pricing.md is stale
    (comment,) = fake_github.comments(OWNER, REPO, NUMBER)
    assert comment.body.startswith(DOCSYNC_COMMENT_MARKER)
    assert "`docs/pricing.md`" in comment.body
    report = json.loads((workspace / "prflow-impact.sarif").read_text())
    assert [d["path"] for d in report["docs"] if d["bucket"] == "must_update"] == [
        "docs/pricing.md"
    ]


def test_a_bad_mode_or_a_missing_pr_fails_with_one_error_line(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    script = ACTION_DIR / "run.sh"
    base = {
        "PATH": os.environ["PATH"],
        "GITHUB_REPOSITORY": f"{OWNER}/{REPO}",
        "ACTION_PR_NUMBER": "7",
    }
    for env, expected in (
        (base | {"ACTION_MODE": "triage"}, "mode must be impact, review or docsync, not 'triage'"),
        (base | {"ACTION_PR_NUMBER": ""}, "no pull request in this event"),
    ):
        done = subprocess.run(
            ["bash", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2
        (line,) = done.stdout.splitlines()
        assert line.startswith("::error title=prflow::") and expected in line


def test_the_example_workflow_uses_the_published_action_path() -> None:
    workflow = yaml.safe_load((ACTION_DIR / "example-workflow.yml").read_text())
    steps = workflow["jobs"]["impact"]["steps"]
    (prflow_step,) = [s for s in steps if "deploy/github-action" in s.get("uses", "")]
    assert prflow_step["uses"].startswith("OWNER/prflow/deploy/github-action@")
    assert set(prflow_step["with"]) <= set(load_action(ACTION_DIR)["inputs"])
    assert {"github-token", "anthropic-api-key", "mode", "threshold", "model"} <= set(
        load_action(ACTION_DIR)["inputs"]
    )
    assert steps[0]["with"]["fetch-depth"] == 0
