"""The bench's pull requests: a real git repository each, prflow's review posted on it, and
the pushes the script makes.

Each PR adds ``calc/ops.py`` with one function per finding; a finding cites the
function's ``return`` line, whose text is unique in the file. A push that fixes a
finding rewrites that line (so the finding no longer holds); a push that fixes
nothing touches ``NOTES.md``. The change also brings ``tests/test_ops.py`` (one test per
function, green with the cited line and with its fix) and a ``pyproject.toml``, so
``/prflow fix`` has a suite to validate against. The review is posted by prflow's account through
PyGithub, one inline comment per finding carrying its fingerprint as prflow renders
it, and the conversation is started the way the posted review starts it
(signal-with-start, :func:`prflow.conversation.delivery.signal_with_start`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from github import Auth, Github
from temporalio.client import Client

from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.conversation.delivery import signal_with_start
from prflow.conversation.events import ReviewPosted
from prflow.conversation.kind import CONVERSATION, PHASE
from prflow.conversation.state import ConversationState
from prflow.pr_identifier import PullRequestRef
from prflow.queue.state import QueueNames
from tests.support.conversation_runs import Finding
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_TOKEN
from tests.support.sample_repos import commit_all, git, init_repo, write_files

OWNER = "octo-bench"
NUMBER = 1
PATH = "calc/ops.py"


def _cited(finding: int) -> str:
    return f"    return a / b  # ratio {finding}"


def _fixed(finding: int) -> str:
    return f"    return a / b if b else 0.0  # ratio {finding}, guarded"


def _broken(finding: int) -> str:
    return f"    return b / a if a else 0.0  # ratio {finding}, guarded"


PYPROJECT = (
    '[project]\nname = "calc"\nversion = "0.1.0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
)
TEST_COMMAND = "python -m pytest -q tests"


def ops_tests_file(findings: int) -> str:
    """One test per ratio: 6 / 3 is 2 whether or not the line guards against zero."""
    lines = ["from calc import ops"]
    for f in range(findings):
        lines += ["", "", f"def test_ratio_{f}() -> None:", f"    assert ops.ratio_{f}(6, 3) == 2"]
    return "\n".join(lines) + "\n"


def fix_edit(finding: int, breaks: bool) -> tuple[str, str]:
    """The scripted ``/prflow fix`` edit of a finding's line: the guard a push would write,
    or (``breaks``) a guard that swaps the operands and fails the finding's test."""
    return _cited(finding), _broken(finding) if breaks else _fixed(finding)


def ops_file(findings: int, fixed: set[int]) -> str:
    lines = ['"""Ratios of the bench."""', ""]
    for f in range(findings):
        lines += ["", f"def ratio_{f}(a: float, b: float) -> float:"]
        lines.append(_fixed(f) if f in fixed else _cited(f))
    return "\n".join(lines) + "\n"


def cited_line(findings: int, finding: int) -> int:
    """1-based line of finding ``finding``'s ``return`` in :func:`ops_file`."""
    return 2 + 3 * finding + 3


@dataclass
class BenchPr:
    """One PR of the bench and what the script did to it so far."""

    number: int
    findings: list[Finding]
    work: Path
    bare: Path
    repo: str
    heads: list[str] = field(default_factory=list)
    fixed: set[int] = field(default_factory=set)
    fixed_at: dict[int, int] = field(default_factory=dict)
    """Finding → index in ``heads`` of the push that fixed it."""
    roots: dict[int, int] = field(default_factory=dict)
    """Finding → id of the inline comment that opened its thread."""
    notes: int = 0

    def push(self, fix: tuple[int, ...]) -> str:
        """Commit on the PR branch and push; ``fix`` names the findings whose line changes."""
        self.fixed |= set(fix)
        files: dict[str, str | bytes | None] = {PATH: ops_file(len(self.findings), self.fixed)}
        if not fix:
            self.notes += 1
            files["NOTES.md"] = f"# Notes\n\nPush {self.notes} changes no cited line.\n"
        write_files(self.work, files)
        sha = commit_all(self.work, f"push {len(self.heads)}")
        git(self.work, "push", "-q", str(self.bare), "feature")
        self.heads.append(sha)
        for f in fix:
            self.fixed_at[f] = len(self.heads) - 1
        return sha


def build_pr(fake: FakeGitHub, root: Path, number: int, findings: int) -> BenchPr:
    """A repository ``octo-bench/svcNNN`` with PR #1 (``feature`` into ``main``) on the fake."""
    repo = repo_name(number)
    work = init_repo(root / repo)
    write_files(work, {"README.md": f"# {repo}\n", "calc/__init__.py": ""})
    commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "feature")
    write_files(
        work,
        {
            PATH: ops_file(findings, set()),
            "pyproject.toml": PYPROJECT,
            "tests/test_ops.py": ops_tests_file(findings),
        },
    )
    head = commit_all(work, "add ratios")
    bare = root / f"{repo}.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    fake.add_pull_request(
        OWNER,
        repo,
        NUMBER,
        bare_repo_path=bare,
        base_sha=git(work, "rev-parse", "main"),
        head_sha=head,
        title=f"Ratios for {repo}",
    )
    marks = [
        Finding(PATH, cited_line(findings, f), _cited(f), f"ratio_{f}() divides by zero", "Math")
        for f in range(findings)
    ]
    return BenchPr(number, marks, work, bare, repo, heads=[head])


def post_review(fake: FakeGitHub, pr: BenchPr) -> None:
    """prflow's review of the PR: one inline comment per finding, as prflow's account."""
    gh = Github(base_url=fake.api_url, auth=Auth.Token(FAKE_GITHUB_TOKEN))
    repo = gh.get_repo(f"{OWNER}/{pr.repo}")
    pull = repo.get_pull(NUMBER)
    pull.create_review(
        commit=gh.withLazy(True).get_repo(repo.full_name).get_commit(pr.heads[0]),
        body="prflow review",
        event="COMMENT",
        comments=[
            {"path": f.path, "line": f.line, "side": "RIGHT", "body": f.body()} for f in pr.findings
        ],
    )
    for comment in pull.get_review_comments():
        for index, finding in enumerate(pr.findings):
            if finding.fingerprint in comment.body:
                pr.roots[index] = comment.id


async def start_conversation(
    client: Client, settings: Settings, pr: BenchPr, history_limit: int | None
) -> None:
    """What the posted review's ``conversation_open`` activity does: signal-with-start."""
    t = settings.temporal
    queues = QueueNames(main=t.task_queue, llm=t.llm_task_queue, github=t.github_task_queue)
    plan = phase_plan(settings, CONVERSATION, PHASE).model_copy(update={"task_queue": queues.llm})
    state = ConversationState(
        pr=pr_ref(pr.number), queues=queues, plan=plan, **_limit(history_limit)
    )
    await signal_with_start(
        client, state, ReviewPosted(event_id=f"review:{uuid.uuid4()}", head_sha=pr.heads[0])
    )


def _limit(history_limit: int | None) -> dict[str, Any]:
    return {} if history_limit is None else {"history_limit": history_limit}


def repo_name(number: int) -> str:
    return f"svc{number:03d}"


def pr_ref(number: int) -> PullRequestRef:
    return PullRequestRef(owner=OWNER, repo=repo_name(number), number=NUMBER)
