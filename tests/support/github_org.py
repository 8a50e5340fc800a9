"""An organisation on the loopback GitHub whose pull requests are real git branches.

Each repository is a real git repository with a bare clone that the fake
serves as ``clone_url``; each PR is a branch ``pr-N`` off ``main``, and a push
is a real commit on it (``refs/pull/N/head`` moves as on GitHub). The queue
tests and ``bench/queue`` drive PRs through this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.support.fake_github import FakeGitHub
from tests.support.sample_repos import commit_all, git, init_repo, write_files

BASE_FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": "def price(amount: int) -> int:\n    return amount\n",
    "tests/test_pricing.py": "from shop.pricing import price\n\n\ndef test_price():\n"
    "    assert price(2) == 2\n",
    "README.md": "# shop\n",
}


@dataclass
class SimulatedOrg:
    fake: FakeGitHub
    root: Path
    org: str = "octo-org"
    _pushes: dict[tuple[str, int], int] = field(default_factory=dict)

    def work(self, repo: str) -> Path:
        return self.root / repo / "work"

    def bare(self, repo: str) -> Path:
        return self.root / repo / "origin.git"

    def add_repo(self, repo: str, files: dict[str, str | bytes | None] | None = None) -> None:
        work = init_repo(self.work(repo))
        write_files(work, {**BASE_FILES, **(files or {})})
        commit_all(work, "base")
        git(self.root, "init", "-q", "--bare", "-b", "main", str(self.bare(repo)))
        git(work, "push", "-q", str(self.bare(repo)), "main")
        self.fake.add_user(self.org, type="Organization")
        self.fake.add_repo(self.org, repo, clone_url=self.bare(repo).resolve().as_uri())
        state = self.fake.repo_state(self.org, repo)
        assert state is not None
        state.git_dir = self.bare(repo).resolve()

    def open_pr(
        self, repo: str, number: int, files: dict[str, str | bytes | None] | None = None
    ) -> str:
        """Branch ``pr-N`` with one commit, pushed, and the PR on the fake; returns its head."""
        work = self.work(repo)
        git(work, "checkout", "-q", "-b", f"pr-{number}", "main")
        write_files(work, files or {f"shop/feature_{number}.py": f"VALUE = {number}\n"})
        head = commit_all(work, f"PR {number}")
        git(work, "push", "-q", str(self.bare(repo)), f"pr-{number}")
        base = git(work, "rev-parse", "main")
        git(work, "checkout", "-q", "main")
        self.fake.add_pull_request(
            self.org,
            repo,
            number,
            bare_repo_path=self.bare(repo),
            head_ref=f"pr-{number}",
            base_sha=base,
            head_sha=head,
            title=f"Change {number}",
        )
        return head

    def push(
        self, repo: str, number: int, files: dict[str, str | bytes | None] | None = None
    ) -> str:
        """A new commit on the PR's branch; GitHub's PR head moves to it. Returns the sha."""
        work = self.work(repo)
        count = self._pushes[(repo, number)] = self._pushes.get((repo, number), 0) + 1
        git(work, "checkout", "-q", f"pr-{number}")
        write_files(work, files or {f"shop/feature_{number}.py": f"VALUE = {number + count}\n"})
        head = commit_all(work, f"PR {number}, push {count}")
        git(work, "push", "-q", str(self.bare(repo)), f"pr-{number}")
        git(work, "checkout", "-q", "main")
        self.fake.push(self.org, repo, number, head)
        return head

    def close(self, repo: str, number: int, merged: bool = False) -> None:
        self.fake.set_pull_state(self.org, repo, number, state="closed", merged=merged)

    def head(self, repo: str, number: int) -> str:
        issue = self.fake.issue_state(self.org, repo, number)
        assert issue is not None and issue.pull is not None
        return issue.pull.head_sha
