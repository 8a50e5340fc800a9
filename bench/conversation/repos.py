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

from dataclasses import dataclass, field
from pathlib import Path

from github import Auth, Github
from temporalio.client import Client

from prflow.config import Settings
from prflow.pr_identifier import PullRequestRef
from tests.support.conversation_runs import Finding, open_conversation, post_review, publish_pr
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
    publish_pr(fake, work, root / f"{repo}.git", pr_ref(number), f"Ratios for {repo}")
    marks = [
        Finding(PATH, cited_line(findings, f), _cited(f), f"ratio_{f}() divides by zero", "Math")
        for f in range(findings)
    ]
    return BenchPr(number, marks, work, root / f"{repo}.git", repo, heads=[head])


def post_bench_review(fake: FakeGitHub, pr: BenchPr) -> None:
    """prflow's review of the PR: one inline comment per finding, as prflow's account."""
    gh = Github(base_url=fake.api_url, auth=Auth.Token(FAKE_GITHUB_TOKEN))
    roots = post_review(gh, pr_ref(pr.number), pr.heads[0], pr.findings)
    pr.roots.update({index: roots[f.fingerprint] for index, f in enumerate(pr.findings)})


async def start_conversation(
    client: Client, settings: Settings, pr: BenchPr, history_limit: int | None
) -> None:
    """What the posted review's ``conversation_open`` activity does: signal-with-start."""
    await open_conversation(
        client, settings, pr_ref(pr.number), pr.heads[0], history_limit=history_limit
    )


def repo_name(number: int) -> str:
    return f"svc{number:03d}"


def pr_ref(number: int) -> PullRequestRef:
    return PullRequestRef(owner=OWNER, repo=repo_name(number), number=NUMBER)
