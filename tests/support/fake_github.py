"""A loopback GitHub REST server: real HTTP, GitHub's JSON shapes, state tests can inspect.

prflow talks to GitHub through PyGithub; this server lets tests run that real
client end to end on 127.0.0.1. It keeps users, repositories, pull requests
and issue comments in memory, serves the endpoints prflow uses with the
fields of GitHub's published OpenAPI description (its own tests validate
every body it sent against models generated from that description), pages
lists with RFC 5988 ``Link`` headers, and can be told to fail the way GitHub
fails: 5xx, primary rate limit (403 + ``x-ratelimit-remaining: 0``), secondary
rate limit (429 + ``retry-after``), or any status with any body.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from github.Requester import Requester

from tests.support.fake_github_checks import (
    FakeCheckRun,
    FakeStatus,
    actions_app_json,
    check_run_json,
    combined_state,
    status_json,
)
from tests.support.fake_github_git import GitData, GitDataError
from tests.support.fake_github_graphql import (
    FakeReviewThread,
    FakeThreadComment,
    answer_graphql,
)
from tests.support.fake_github_reviews import (
    FakeReview,
    FakeReviewComment,
    Placed,
    ReviewRejected,
    line_after,
    place_comment,
    pull_diff,
    pull_files,
    rejection_json,
    review_comment_json,
    review_json,
    validate_review_request,
)

DOCS = "https://docs.github.com/rest"
RATE_LIMIT = 5000
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
PULL_FILES_LIMIT = 3000  # `GET /pulls/{n}/files` lists no more
COMMENT_MAX_CHARS = 65536
API_VERSION = "2022-11-28"

Json = Any


@dataclass
class FakeUser:
    login: str
    id: int
    type: str = "User"  # "User", "Organization" or "Bot"
    name: str | None = None


@dataclass
class FakeRepo:
    owner: str
    name: str
    id: int
    clone_url: str
    default_branch: str = "main"
    private: bool = False
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    git_dir: Path | None = None  # the bare repository behind clone_url, when seeded with one
    parent: FakeRepo | None = None  # a fork's upstream
    # Who may do what (GitHub's repository roles); a login not named has ``default_role``,
    # the repository's owner is admin.
    roles: dict[str, str] = field(default_factory=dict)
    default_role: str = "write"

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def fork(self) -> bool:
        return self.parent is not None

    def role_of(self, login: str) -> str:
        if login == self.owner:
            return "admin"
        return self.roles.get(login, self.default_role)


@dataclass
class FakeIssue:
    """An issue or, when ``pull`` is set, the issue side of a pull request."""

    repo: FakeRepo
    number: int
    id: int
    title: str
    author: str
    body: str | None = None
    pull: FakePull | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    closed_at: datetime | None = None


@dataclass
class FakePull:
    id: int
    base_ref: str
    head_ref: str
    base_sha: str
    head_sha: str
    state: str = "open"
    merged: bool = False
    draft: bool = False
    mergeable: bool | None = True
    mergeable_state: str = "clean"
    too_large: frozenset[str] = frozenset()  # files whose diff GitHub will not show
    # Extra `git diff` options GitHub's diff of this PR is computed with, in its file list
    # and in its 422 rule alike: a GitHub whose diff is not the one a runner's git prints.
    diff_options: tuple[str, ...] = ()
    head_repo: FakeRepo | None = None  # a fork holding the head branch; None: the base repo
    maintainer_can_modify: bool = False  # the fork's owner lets the base's writers push


# GitHub's repository roles and the permissions each grants (``permissions`` of a repository,
# ``GET /repos/{o}/{r}/collaborators/{u}/permission``).
ROLE_PERMISSIONS = {
    "admin": ("admin", "maintain", "push", "triage", "pull"),
    "maintain": ("maintain", "push", "triage", "pull"),
    "write": ("push", "triage", "pull"),
    "triage": ("triage", "pull"),
    "read": ("pull",),
}
# The legacy ``permission`` value the collaborator-permission endpoint answers for each role.
LEGACY_PERMISSION = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
}


@dataclass
class FakeComment:
    id: int
    issue: FakeIssue
    author: str
    body: str
    created_at: datetime
    updated_at: datetime


@dataclass
class Fault:
    """A canned failure served instead of the real answer to matching requests."""

    status: int
    body: Json
    headers: dict[str, str] = field(default_factory=dict)
    method: str | None = None
    path_pattern: str | None = None  # regex searched in the request path
    times: int = 1

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method == method) and (
            self.path_pattern is None or re.search(self.path_pattern, path) is not None
        )


@dataclass(frozen=True)
class Exchange:
    """One request the fake answered, and what it answered."""

    method: str
    path: str
    query: dict[str, str]
    token: str | None
    request_body: Json
    status: int
    response_body: Json
    response_headers: dict[str, str]
    schema: str | None  # OpenAPI component name of the body, '[]' suffix for lists


@dataclass
class _App:
    app_id: str
    public_key_pem: str
    installation_id: int
    slug: str


@dataclass(frozen=True)
class _Call:
    """A routed request: who made it, its query and JSON body, and the path's captured parts."""

    login: str
    query: dict[str, str]
    body: Json
    args: tuple[str, ...]


@dataclass(frozen=True)
class _Answer:
    status: int
    body: Json
    schema: str | None
    headers: dict[str, str] = field(default_factory=dict)


class _Reply(Exception):
    """Raised by handlers to answer at once, typically with an error."""

    def __init__(self, answer: _Answer) -> None:
        super().__init__(answer.status)
        self.answer = answer


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeGitHub:
    """The server and its state. Use :meth:`start`/:meth:`stop` or ``with FakeGitHub() as gh``."""

    def __init__(self, api_prefix: str = "") -> None:
        self.api_prefix = api_prefix.rstrip("/")
        self.exchanges: list[Exchange] = []
        self._lock = threading.RLock()
        self._ids = itertools.count(1000)
        self._users: dict[str, FakeUser] = {}
        self._tokens: dict[str, str] = {}
        self._repos: dict[tuple[str, str], FakeRepo] = {}
        self._issues: dict[tuple[str, str, int], FakeIssue] = {}
        self._comments: dict[int, FakeComment] = {}
        self._faults: list[Fault] = []
        self._holds: list[tuple[str, re.Pattern[str], threading.Event]] = []
        self._parked: list[tuple[str, str]] = []
        self._apps: dict[int, _App] = {}
        self._threads: dict[tuple[str, str, int], list[FakeReviewThread]] = {}
        self._reviews: list[tuple[FakeIssue, FakeReview]] = []
        self._review_comments: list[tuple[FakeIssue, FakeReviewComment]] = []
        self._check_runs: dict[int, FakeCheckRun] = {}
        self._statuses: list[FakeStatus] = []
        self._downloads: dict[str, int] = {}  # signed download token -> job id
        self._remaining = RATE_LIMIT
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def web_url(self) -> str:
        """Where ``html_url`` values point (GitHub Enterprise style: same host as the API)."""
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def api_url(self) -> str:
        """The base URL to give PyGithub (``PRFLOW_GITHUB_API_URL``)."""
        return self.web_url + self.api_prefix

    # --- seeding state --------------------------------------------------------------------

    def add_user(self, login: str, token: str | None = None, type: str = "User") -> FakeUser:
        with self._lock:
            user = self._users.get(login) or FakeUser(login=login, id=next(self._ids), type=type)
            self._users[login] = user
            if token is not None:
                self._tokens[token] = login
            return user

    def add_repo(
        self,
        owner: str,
        name: str,
        clone_url: str | None = None,
        default_branch: str = "main",
        private: bool = False,
    ) -> FakeRepo:
        with self._lock:
            if owner not in self._users:
                self.add_user(owner, type="Organization")
            repo = FakeRepo(
                owner=owner,
                name=name,
                id=next(self._ids),
                clone_url=clone_url or f"{self.web_url}/{owner}/{name}.git",
                default_branch=default_branch,
                private=private,
            )
            self._repos[(owner, name)] = repo
            return repo

    def add_pull_request(
        self,
        owner: str,
        repo: str,
        number: int,
        bare_repo_path: Path | None = None,
        base_ref: str = "main",
        head_ref: str = "feature",
        base_sha: str = "0" * 40,
        head_sha: str = "1" * 40,
        title: str = "A pull request",
        author: str = "contributor",
        body: str | None = None,
        state: str = "open",
        merged: bool = False,
        draft: bool = False,
        head_owner: str | None = None,
        maintainer_can_modify: bool = False,
    ) -> FakeIssue:
        """Seed a PR. With ``bare_repo_path`` the repository clones from that local bare
        repository (file:// URL) and, as GitHub does, ``refs/pull/N/head`` is set there.

        ``head_owner``: the head branch lives in that account's fork of the repository
        (:meth:`add_fork`; made here when missing, sharing the base's git directory)."""
        with self._lock:
            clone_url = bare_repo_path.resolve().as_uri() if bare_repo_path else None
            target = self._repos.get((owner, repo))
            if target is None or (clone_url and target.clone_url != clone_url):
                target = self.add_repo(owner, repo, clone_url=clone_url, default_branch=base_ref)
                target.git_dir = bare_repo_path.resolve() if bare_repo_path else None
            self.add_user(author)
            pull = FakePull(
                id=next(self._ids),
                base_ref=base_ref,
                head_ref=head_ref,
                base_sha=base_sha,
                head_sha=head_sha,
                state="closed" if merged else state,
                merged=merged,
                draft=draft,
                maintainer_can_modify=maintainer_can_modify,
            )
            if head_owner is not None and head_owner != owner:
                pull.head_repo = self._repos.get((head_owner, repo)) or self.add_fork(
                    owner, repo, head_owner
                )
            issue = FakeIssue(target, number, next(self._ids), title, author, body=body, pull=pull)
            self._issues[(owner, repo, number)] = issue
        if bare_repo_path is not None:
            subprocess.run(
                [
                    "git",
                    "--git-dir",
                    str(bare_repo_path),
                    "update-ref",
                    f"refs/pull/{number}/head",
                    head_sha,
                ],
                check=True,
                capture_output=True,
            )
        return issue

    def add_git_repo(
        self, owner: str, name: str, bare_repo_path: Path, default_branch: str = "main"
    ) -> FakeRepo:
        """Seed a repository backed by a real bare repository: the Git Data API and
        pull creation read and write it."""
        repo = self.add_repo(
            owner, name, clone_url=bare_repo_path.resolve().as_uri(), default_branch=default_branch
        )
        repo.git_dir = bare_repo_path.resolve()
        return repo

    def add_fork(
        self, owner: str, name: str, fork_owner: str, bare_repo_path: Path | None = None
    ) -> FakeRepo:
        """``fork_owner``'s fork of ``owner/name``: only its owner (and whoever it names with
        :meth:`set_role`) may push to it. Without ``bare_repo_path`` it shares the upstream's
        git directory (its objects; a test that pushes to the fork should give its own)."""
        with self._lock:
            upstream = self._repos[(owner, name)]
            self.add_user(fork_owner)
            git_dir = bare_repo_path.resolve() if bare_repo_path else upstream.git_dir
            fork = self.add_repo(
                fork_owner,
                name,
                clone_url=git_dir.as_uri() if git_dir else None,
                default_branch=upstream.default_branch,
            )
            fork.git_dir, fork.parent, fork.default_role = git_dir, upstream, "read"
            return fork

    def set_role(self, owner: str, name: str, login: str, role: str) -> None:
        """Give ``login`` one of GitHub's repository roles (admin, maintain, write, triage,
        read) on the repository; ``login="*"`` sets the role of everyone not named."""
        assert role in ROLE_PERMISSIONS, role
        with self._lock:
            repo = self._repos[(owner, name)]
            if login == "*":
                repo.default_role = role
            else:
                self.add_user(login)
                repo.roles[login] = role

    def pulls(self, owner: str, name: str) -> list[FakeIssue]:
        """The repository's pull requests, by number."""
        with self._lock:
            return sorted(
                (i for (o, n, _), i in self._issues.items() if (o, n) == (owner, name) and i.pull),
                key=lambda i: i.number,
            )

    def add_issue(self, owner: str, repo: str, number: int, title: str = "An issue") -> FakeIssue:
        with self._lock:
            target = self._repos.get((owner, repo)) or self.add_repo(owner, repo)
            self.add_user("reporter")
            issue = FakeIssue(target, number, next(self._ids), title, "reporter")
            self._issues[(owner, repo, number)] = issue
            return issue

    def add_comment(self, owner: str, repo: str, number: int, body: str, author: str) -> int:
        """Seed an issue comment directly (no HTTP); returns its id."""
        with self._lock:
            self.add_user(author)
            now = datetime.now(UTC)
            comment = FakeComment(
                next(self._ids), self._issues[(owner, repo, number)], author, body, now, now
            )
            self._comments[comment.id] = comment
            return comment.id

    def add_review_thread(
        self,
        owner: str,
        repo: str,
        number: int,
        path: str,
        line: int | None,
        comments: list[tuple[str, str]],
        resolved: bool = False,
        outdated: bool = False,
    ) -> FakeReviewThread:
        """Seed a review thread on a PR; ``comments`` are ``(author, body)`` pairs, opener
        first. Authors ending in ``[bot]`` are created as bots. Each comment is a REST
        review comment too (the replies with ``in_reply_to_id``), as on GitHub."""
        with self._lock:
            for author, _ in comments:
                self.add_user(author, type="Bot" if author.endswith("[bot]") else "User")
            issue = self._issues[(owner, repo, number)]
            assert issue.pull is not None
            thread = FakeReviewThread(
                id=f"PRRT_kwDO{next(self._ids):08d}",
                path=path,
                line=line,
                comments=[],
                is_resolved=resolved,
                is_outdated=outdated,
            )
            self._threads.setdefault((owner, repo, number), []).append(thread)
            for author, body in comments:
                self._add_thread_comment(issue, thread, author, body)
            return thread

    def _add_thread_comment(
        self, issue: FakeIssue, thread: FakeReviewThread, author: str, body: str
    ) -> FakeReviewComment:
        """One comment in ``thread`` in both views GitHub has of it: GraphQL's thread and a
        REST review comment of its own single-comment review (a reply names the opener)."""
        pull = issue.pull
        assert pull is not None
        with self._lock:
            opener = self._rest_comment(thread.comments[0].id) if thread.comments else None
            placed = (
                opener.placed
                if opener is not None
                else Placed(thread.path, thread.line or 1, "RIGHT", thread.start_line,
                            "RIGHT" if thread.start_line else None, None, "@@ -1 +1 @@")
            )  # fmt: skip
            commit_id = opener.commit_id if opener is not None else pull.head_sha
            review = FakeReview(next(self._ids), issue.number, author, "", "COMMENTED", commit_id)
            self._reviews.append((issue, review))
            comment = FakeReviewComment(
                next(self._ids), review.id, issue.number, author, body, placed, commit_id,
                thread.id, in_reply_to_id=opener.id if opener is not None else None,
            )  # fmt: skip
            thread.comments.append(FakeThreadComment(comment.id, author, body))
            self._review_comments.append((issue, comment))
            return comment

    def _rest_comment(self, comment_id: int) -> FakeReviewComment | None:
        with self._lock:
            return next((c for _, c in self._review_comments if c.id == comment_id), None)

    def add_check_run(
        self,
        owner: str,
        repo: str,
        head_sha: str,
        name: str,
        status: str = "completed",
        conclusion: str | None = "success",
        log: str | None = None,
    ) -> FakeCheckRun:
        """Seed a GitHub Actions job's check run on ``head_sha``; ``log`` is its job log."""
        with self._lock:
            run = FakeCheckRun(
                next(self._ids), f"{owner}/{repo}", head_sha, name, status, conclusion, log
            )
            if status == "completed":
                run.completed_at = datetime.now(UTC)
            self._check_runs[run.id] = run
            return run

    def finish_check_run(self, run_id: int, conclusion: str, log: str | None = None) -> None:
        """Complete a queued or running check run, as a finished job does."""
        with self._lock:
            run = self._check_runs[run_id]
            run.status, run.conclusion = "completed", conclusion
            run.completed_at = datetime.now(UTC)
            if log is not None:
                run.log = log

    def add_commit_status(
        self,
        owner: str,
        repo: str,
        sha: str,
        context: str,
        state: str,
        description: str | None = None,
    ) -> FakeStatus:
        """Seed a commit status (the pre-checks CI API some services still use)."""
        with self._lock:
            status = FakeStatus(
                next(self._ids), f"{owner}/{repo}", sha, context, state, description
            )
            self._statuses.append(status)
            return status

    def set_pull_state(self, owner: str, repo: str, number: int, **changes: Any) -> None:
        """Change a seeded PR's fields (``state``, ``merged``, ``mergeable``, ``head_sha``...)."""
        with self._lock:
            issue = self._issues[(owner, repo, number)]
            pull = issue.pull
            assert pull is not None
            for name, value in changes.items():
                setattr(pull, name, value)
            issue.updated_at = max(datetime.now(UTC), issue.updated_at + timedelta(seconds=1))
            if pull.state == "closed" and issue.closed_at is None:
                issue.closed_at = issue.updated_at

    def push(self, owner: str, repo: str, number: int, head_sha: str) -> datetime:
        """A new head on a PR, as a push to its branch makes it (``refs/pull/N/head`` too);
        returns the PR's new ``updated_at``. Review threads whose line the push changed
        become outdated; the others follow their line."""
        with self._lock:
            issue = self._issues[(owner, repo, number)]
            assert issue.pull is not None
            old_head = issue.pull.head_sha
        self.set_pull_state(owner, repo, number, head_sha=head_sha)
        self._follow_threads(issue, old_head, head_sha)
        if issue.repo.git_dir is not None:
            subprocess.run(
                [
                    "git",
                    "--git-dir",
                    str(issue.repo.git_dir),
                    "update-ref",
                    f"refs/pull/{number}/head",
                    head_sha,
                ],
                check=True,
                capture_output=True,
            )
        return issue.updated_at

    def push_to_pull(self, owner: str, repo: str, number: int, head_sha: str) -> None:
        """A new push to the PR's branch: its head moves, and ``refs/pull/N/head`` with it."""
        with self._lock:
            issue = self._issues[(owner, repo, number)]
            assert issue.pull is not None and issue.repo.git_dir is not None
            old_head, issue.pull.head_sha = issue.pull.head_sha, head_sha
            git_dir = issue.repo.git_dir
        subprocess.run(
            ["git", "--git-dir", str(git_dir), "update-ref", f"refs/pull/{number}/head", head_sha],
            check=True,
            capture_output=True,
        )
        self._follow_threads(issue, old_head, head_sha)

    def _follow_threads(self, issue: FakeIssue, old_head: str, new_head: str) -> None:
        """After a push: each open thread's line at the new head, or outdated when the push
        changed that line or removed its file (judged on the head side, with git's own diff
        between the two heads)."""
        git_dir = issue.repo.git_dir
        if git_dir is None or old_head == new_head:
            return
        key = (issue.repo.owner, issue.repo.name, issue.number)
        with self._lock:
            threads = [t for t in self._threads.get(key, []) if not t.is_outdated and t.line]
        for thread in threads:
            try:
                moved = line_after(git_dir, old_head, new_head, thread.path, thread.line or 0)
            except LookupError:  # commits the repository does not hold: nothing to judge
                continue
            with self._lock:
                if moved is None:
                    thread.is_outdated = True
                else:
                    thread.line = moved

    def resolve_thread(self, thread_id: str, by: str = "maintainer") -> None:
        """A person resolves a review thread."""
        self._set_resolved(thread_id, True, by)

    def unresolve_thread(self, thread_id: str, by: str = "maintainer") -> None:
        """A person unresolves a review thread."""
        self._set_resolved(thread_id, False, by)

    def _set_resolved(self, thread_id: str, resolved: bool, by: str) -> FakeReviewThread:
        found = self.thread_state(thread_id)
        if found is None:
            raise KeyError(thread_id)
        with self._lock:
            found[1].is_resolved = resolved
            found[1].resolved_by = self.add_user(by).login if resolved else None
        return found[1]

    def thread_state(self, thread_id: str) -> tuple[FakeIssue, FakeReviewThread] | None:
        """The PR a review thread is on, and the thread (by its GraphQL node id)."""
        with self._lock:
            for key, threads in self._threads.items():
                for thread in threads:
                    if thread.id == thread_id:
                        return self._issues[key], thread
        return None

    def association(self, owner: str, name: str, login: str) -> str:
        """``author_association`` of ``login`` on the repository: OWNER, COLLABORATOR (a role
        given with :meth:`set_role`), CONTRIBUTOR (opened one of its PRs) or NONE."""
        with self._lock:
            repo = self._repos[(owner, name)]
            if login == owner:
                return "OWNER"
            if login in repo.roles:
                return "COLLABORATOR"
            authored = any(
                i.repo is repo and i.author == login and i.pull is not None
                for i in self._issues.values()
            )
        return "CONTRIBUTOR" if authored else "NONE"

    def can_push(self, login: str, repo: FakeRepo, branch: str) -> bool:
        """GitHub's rule for a push to ``branch`` of ``repo``: write access to it, or a
        fork's PR branch whose owner allows the base repository's writers to push."""
        if "push" in ROLE_PERMISSIONS[repo.role_of(login)]:
            return True
        if repo.parent is None or "push" not in ROLE_PERMISSIONS[repo.parent.role_of(login)]:
            return False
        with self._lock:
            return any(
                issue.pull.head_repo is repo
                and issue.pull.head_ref == branch
                and issue.pull.maintainer_can_modify
                and issue.pull.state == "open"
                for issue in self._issues.values()
                if issue.pull is not None
            )

    def register_app(
        self, app_id: str, public_key_pem: str, installation_id: int, slug: str
    ) -> None:
        """Accept installation-token requests signed by the app's private key."""
        with self._lock:
            self._apps[installation_id] = _App(app_id, public_key_pem, installation_id, slug)
            self.add_user(f"{slug}[bot]", type="Bot")

    # --- faults ---------------------------------------------------------------------------

    def inject(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def hold(self, method: str, path_pattern: str) -> threading.Event:
        """Park matching requests until the returned event is set (a slow GitHub), 60 s at most."""
        gate = threading.Event()
        with self._lock:
            self._holds.append((method, re.compile(path_pattern), gate))
        return gate

    def parked(self, method: str, path_pattern: str) -> int:
        """How many requests matching ``path_pattern`` a hold is parking right now."""
        pattern = re.compile(path_pattern)
        with self._lock:
            return sum(1 for m, path in self._parked if m == method and pattern.search(path))

    def _wait_for_holds(self, method: str, path: str) -> None:
        with self._lock:
            gates = [g for m, pattern, g in self._holds if m == method and pattern.search(path)]
            parked = (method, path)
            self._parked.append(parked)
        try:
            for gate in gates:
                gate.wait(timeout=60)
        finally:
            with self._lock:
                self._parked.remove(parked)

    def fail_with_server_error(self, times: int = 1, status: int = 500) -> None:
        self.inject(Fault(status, {"message": "Server Error"}, times=times))

    def exhaust_rate_limit(self, reset_in_seconds: int = 120, times: int = 1) -> int:
        """Primary rate limit: 403 with ``x-ratelimit-remaining: 0``; returns the reset epoch."""
        reset = int(time.time()) + reset_in_seconds
        self.inject(
            Fault(
                403,
                {
                    "message": "API rate limit exceeded for user ID 1. If you reach out to "
                    "GitHub Support for help, please include the request ID.",
                    "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
                    "status": "403",
                },
                headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
                times=times,
            )
        )
        return reset

    def throttle(self, retry_after_seconds: int = 7, times: int = 1) -> None:
        """Secondary rate limit: 429 with ``retry-after``."""
        self.inject(
            Fault(
                429,
                {
                    "message": "You have exceeded a secondary rate limit. Please wait a few "
                    "minutes before you try again.",
                    "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
                    "status": "429",
                },
                headers={"retry-after": str(retry_after_seconds)},
                times=times,
            )
        )

    # --- inspection -----------------------------------------------------------------------

    def comments(self, owner: str, repo: str, number: int) -> list[FakeComment]:
        with self._lock:
            issue = self._issues[(owner, repo, number)]
            return [c for c in self._comments.values() if c.issue is issue]

    def reviews(self, owner: str, repo: str, number: int) -> list[FakeReview]:
        with self._lock:
            issue = self._issues[(owner, repo, number)]
            return [review for target, review in self._reviews if target is issue]

    def review_comments(self, owner: str, repo: str, number: int) -> list[FakeReviewComment]:
        with self._lock:
            issue = self._issues[(owner, repo, number)]
            return [c for target, c in self._review_comments if target is issue]

    def repo_state(self, owner: str, name: str) -> FakeRepo | None:
        with self._lock:
            return self._repos.get((owner, name))

    def issue_state(self, owner: str, name: str, number: int) -> FakeIssue | None:
        with self._lock:
            return self._issues.get((owner, name, number))

    def user_state(self, login: str) -> FakeUser | None:
        with self._lock:
            return self._users.get(login)

    def review_threads(self, owner: str, name: str, number: int) -> list[FakeReviewThread]:
        with self._lock:
            return list(self._threads.get((owner, name, number), []))

    def requests(
        self, method: str | None = None, path_pattern: str | None = None
    ) -> list[Exchange]:
        with self._lock:
            return [
                ex
                for ex in self.exchanges
                if (method is None or ex.method == method)
                and (path_pattern is None or re.search(path_pattern, ex.path))
            ]

    # --- request handling -----------------------------------------------------------------

    def handle(
        self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes
    ) -> tuple[int, Json, dict[str, str]]:
        """Answer one HTTP request and log the exchange."""
        parts = urlsplit(raw_path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        token = _bearer(headers.get("authorization", ""))
        request_body: Json = None
        try:
            request_body = json.loads(raw_body) if raw_body else None
            answer = self._dispatch(method, parts.path, query, token, request_body)
        except _Reply as reply:
            answer = reply.answer
        except (json.JSONDecodeError, UnicodeDecodeError):
            problem = {"message": "Problems parsing JSON", "documentation_url": DOCS}
            answer = _Answer(400, problem, "basic-error")
        response_headers = self._standard_headers() | answer.headers
        exchange = Exchange(
            method=method,
            path=parts.path,
            query=query,
            token=token,
            request_body=request_body,
            status=answer.status,
            response_body=answer.body,
            response_headers=response_headers,
            schema=answer.schema,
        )
        with self._lock:
            self.exchanges.append(exchange)
        return answer.status, answer.body, response_headers

    def _standard_headers(self) -> dict[str, str]:
        with self._lock:
            self._remaining = max(self._remaining - 1, 0)
            remaining = self._remaining
        return {
            "x-ratelimit-limit": str(RATE_LIMIT),
            "x-ratelimit-remaining": str(remaining),
            "x-ratelimit-used": str(RATE_LIMIT - remaining),
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-resource": "core",
            "x-github-api-version-selected": API_VERSION,
        }

    def _dispatch(
        self, method: str, path: str, query: dict[str, str], token: str | None, body: Json
    ) -> _Answer:
        download = re.fullmatch(r"/_download/job-logs/(\d+)", path)
        if method == "GET" and download:
            return self._download_job_log(int(download[1]), query.get("sig", ""))
        if method == "POST" and path == Requester.get_graphql_prefix(self.api_prefix):
            login = self._authenticate(token)
            self._raise_fault(method, path)
            status, payload = answer_graphql(self, body, login)
            return _Answer(status, payload, "graphql")
        if self.api_prefix:
            if not path.startswith(self.api_prefix + "/"):
                raise _Reply(_not_found())
            path = path[len(self.api_prefix) :]
        installation = re.fullmatch(r"/app/installations/(\d+)/access_tokens", path)
        if method == "POST" and installation:
            return self._issue_installation_token(int(installation[1]), token)
        login = self._authenticate(token)
        self._raise_fault(method, path)
        self._wait_for_holds(method, path)
        for route_method, pattern, handler in self._routes():
            match = re.fullmatch(pattern, path)
            if match and route_method == method:
                return handler(_Call(login, query, body, match.groups()))
        raise _Reply(_not_found())

    def _delete_comment(self, call: _Call) -> _Answer:
        comment = self._visible_comment(call)
        with self._lock:
            self._comments.pop(comment.id, None)
        return _Answer(204, None, "empty")

    def _routes(self) -> list[tuple[str, str, Callable[[_Call], _Answer]]]:
        repo = r"/repos/([^/]+)/([^/]+)"
        return [
            ("GET", r"/user", self._get_user),
            ("GET", r"/orgs/([^/]+)/repos", self._list_org_repos),
            ("GET", repo, self._get_repo),
            ("GET", repo + r"/pulls", self._list_pulls),
            ("GET", repo + r"/pulls/(\d+)", self._get_pull),
            ("GET", repo + r"/pulls/(\d+)/reviews", self._list_reviews),
            ("POST", repo + r"/pulls/(\d+)/reviews", self._create_review),
            ("GET", repo + r"/pulls/(\d+)/reviews/(\d+)/comments", self._list_one_reviews_comments),
            ("GET", repo + r"/pulls/(\d+)/comments", self._list_review_comments),
            ("POST", repo + r"/pulls/(\d+)/comments/(\d+)/replies", self._reply_to_review_comment),
            ("GET", repo + r"/pulls/comments/(\d+)", self._get_review_comment),
            ("GET", repo + r"/collaborators/([^/]+)/permission", self._collaborator_permission),
            ("GET", repo + r"/pulls/(\d+)/files", self._list_pull_files),
            ("GET", repo + r"/commits/([^/]+)/check-runs", self._list_check_runs),
            ("GET", repo + r"/commits/([^/]+)/status", self._combined_status),
            ("GET", repo + r"/actions/jobs/(\d+)/logs", self._job_logs),
            ("GET", repo + r"/issues/(\d+)", self._get_issue),
            ("GET", repo + r"/issues/(\d+)/comments", self._list_comments),
            ("POST", repo + r"/issues/(\d+)/comments", self._create_comment),
            ("GET", repo + r"/issues/comments/(\d+)", self._get_comment),
            ("PATCH", repo + r"/issues/comments/(\d+)", self._edit_comment),
            ("POST", repo + r"/pulls", self._create_pull),
            ("POST", repo + r"/git/blobs", self._git_blob),
            ("POST", repo + r"/git/trees", self._git_tree),
            ("POST", repo + r"/git/commits", self._git_commit),
            ("GET", repo + r"/git/commits/([0-9a-f]{40})", self._git_get_commit),
            ("GET", repo + r"/git/ref/(.+)", self._git_get_ref),
            ("POST", repo + r"/git/refs", self._git_create_ref),
            ("PATCH", repo + r"/git/refs/(.+)", self._git_update_ref),
            ("DELETE", repo + r"/issues/comments/(\d+)", self._delete_comment),
        ]

    # --- Git Data API and pull creation (on the repository's real bare git directory) -----

    def _git_data(self, call: _Call) -> GitData:
        repo = self._visible_repo(call.login, *call.args[:2])
        if repo.git_dir is None:
            raise _Reply(_error(409, "Git Repository is empty."))
        return GitData(
            repo.git_dir,
            f"{self.api_url}/repos/{repo.full_name}",
            f"{self.web_url}/{repo.full_name}",
        )

    def _git_answer(self, status: int, schema: str, produce: Callable[[], Json]) -> _Answer:
        try:
            return _Answer(status, produce(), schema)
        except GitDataError as exc:
            if exc.status == 404:
                raise _Reply(_not_found()) from None
            raise _Reply(
                _Answer(
                    exc.status,
                    {"message": exc.message, "documentation_url": f"{DOCS}/git"},
                    "validation-error",
                )
            ) from None

    def _require_push(self, call: _Call, branch: str | None) -> None:
        """403 as GitHub answers a write to a repository (or branch) the caller may not push
        to; ``branch=None``: new objects, allowed to whoever may push to some branch."""
        repo = self._visible_repo(call.login, *call.args[:2])
        with self._lock:
            branches = (
                [branch]
                if branch is not None
                else [repo.default_branch]
                + [i.pull.head_ref for i in self._issues.values() if i.pull is not None]
            )
        if not any(self.can_push(call.login, repo, b) for b in branches):
            user = self._users[call.login]
            who = "integration" if user.type == "Bot" else "personal access token"
            raise _Reply(_error(403, f"Resource not accessible by {who}"))

    def _git_blob(self, call: _Call) -> _Answer:
        self._require_push(call, None)
        data = self._git_data(call)
        answer = self._git_answer(201, "short-blob", lambda: data.blob(call.body))
        answer.headers["location"] = answer.body["url"]
        return answer

    def _git_tree(self, call: _Call) -> _Answer:
        self._require_push(call, None)
        data = self._git_data(call)
        return self._git_answer(201, "git-tree", lambda: data.tree(call.body))

    def _git_commit(self, call: _Call) -> _Answer:
        self._require_push(call, None)
        data = self._git_data(call)
        return self._git_answer(201, "git-commit", lambda: data.commit(call.body, call.login))

    def _git_get_commit(self, call: _Call) -> _Answer:
        data = self._git_data(call)
        return self._git_answer(200, "git-commit", lambda: data.commit_json(call.args[2]))

    def _git_get_ref(self, call: _Call) -> _Answer:
        data = self._git_data(call)
        return self._git_answer(200, "git-ref", lambda: data.ref_json("refs/" + call.args[2]))

    def _git_create_ref(self, call: _Call) -> _Answer:
        ref = call.body.get("ref") if isinstance(call.body, dict) else None
        branch = ref.removeprefix("refs/heads/") if isinstance(ref, str) else None
        self._require_push(call, branch)
        data = self._git_data(call)
        return self._git_answer(201, "git-ref", lambda: data.create_ref(call.body))

    def _git_update_ref(self, call: _Call) -> _Answer:
        """``PATCH .../git/refs/heads/{branch}``: a push through the API. Refused (403) to a
        caller without push access, a fork's branch included; a PR whose head branch it is
        moves to the new commit, as a push to that branch moves it."""
        owner, name, ref = call.args
        branch = ref.removeprefix("heads/") if ref.startswith("heads/") else None
        self._require_push(call, branch if branch is not None else "")
        data = self._git_data(call)
        answer = self._git_answer(200, "git-ref", lambda: data.update_ref("refs/" + ref, call.body))
        if branch is not None:
            self._branch_moved(self._repos[(owner, name)], branch, answer.body["object"]["sha"])
        return answer

    def _branch_moved(self, repo: FakeRepo, branch: str, sha: str) -> None:
        """Open PRs whose head is ``branch`` of ``repo`` now have ``sha`` as their head."""
        with self._lock:
            moved = [
                i
                for i in self._issues.values()
                if i.pull is not None
                and i.pull.state == "open"
                and (i.pull.head_repo or i.repo) is repo
                and i.pull.head_ref == branch
            ]
        for issue in moved:
            if repo.git_dir is not None and issue.repo.git_dir not in (None, repo.git_dir):
                subprocess.run(  # GitHub keeps a fork's objects with its upstream's
                    ["git", "--git-dir", str(issue.repo.git_dir), "fetch", "-q", "--no-tags",
                     repo.git_dir.as_uri(), f"refs/heads/{branch}"],
                    check=True, capture_output=True,
                )  # fmt: skip
            if issue.repo.git_dir is not None:
                self.push(issue.repo.owner, issue.repo.name, issue.number, sha)
            else:
                self.set_pull_state(issue.repo.owner, issue.repo.name, issue.number, head_sha=sha)

    def _create_pull(self, call: _Call) -> _Answer:
        """``POST /repos/{o}/{r}/pulls``: head and base must be branches; one open PR per pair."""
        owner, name = call.args[:2]
        repo = self._visible_repo(call.login, owner, name)
        body = call.body if isinstance(call.body, dict) else {}
        head, base = str(body.get("head", "")), str(body.get("base", ""))
        head_branch = head.split(":", 1)[1] if ":" in head else head
        data = self._git_data(call)
        head_sha, base_sha = data.head_of(head_branch), data.head_of(base)
        docs = f"{DOCS}/pulls/pulls#create-a-pull-request"
        if not body.get("title") or head_sha is None or base_sha is None:
            field_name = (
                "title" if not body.get("title") else ("head" if head_sha is None else "base")
            )
            raise _Reply(
                _Answer(
                    422,
                    {
                        "message": "Validation Failed",
                        "documentation_url": docs,
                        "errors": [
                            {"resource": "PullRequest", "field": field_name, "code": "invalid"}
                        ],
                    },
                    "validation-error",
                )
            )
        with self._lock:
            for issue in self.pulls(owner, name):
                pull = issue.pull
                if (
                    pull
                    and pull.state == "open"
                    and (pull.head_ref, pull.base_ref) == (head_branch, base)
                ):
                    message = f"A pull request already exists for {owner}:{head_branch}."
                    raise _Reply(
                        _Answer(
                            422,
                            {
                                "message": "Validation Failed",
                                "documentation_url": docs,
                                "errors": [
                                    {
                                        "resource": "PullRequest",
                                        "code": "custom",
                                        "message": message,
                                    }
                                ],
                            },
                            "validation-error",
                        )
                    )
            number = 1 + max(
                (n for (o, r, n) in self._issues if (o, r) == (owner, name)), default=0
            )
            pull = FakePull(
                id=next(self._ids),
                base_ref=base,
                head_ref=head_branch,
                base_sha=base_sha,
                head_sha=head_sha,
                draft=bool(body.get("draft")),
            )
            issue = FakeIssue(
                repo,
                number,
                next(self._ids),
                str(body["title"]),
                call.login,
                body=body.get("body"),
                pull=pull,
            )
            self._issues[(owner, name, number)] = issue
        payload = self._pull_json(issue)
        return _Answer(201, payload, "pull-request", {"location": payload["url"]})

    def _authenticate(self, token: str | None) -> str:
        if token is None:
            raise _Reply(_error(401, "Requires authentication"))
        with self._lock:
            login = self._tokens.get(token)
        if login is None:
            raise _Reply(_error(401, "Bad credentials"))
        return login

    def _raise_fault(self, method: str, path: str) -> None:
        with self._lock:
            for fault in self._faults:
                if fault.times > 0 and fault.matches(method, path):
                    fault.times -= 1
                    raise _Reply(
                        _Answer(fault.status, fault.body, "basic-error", dict(fault.headers))
                    )

    # --- endpoints ------------------------------------------------------------------------

    def _get_user(self, call: _Call) -> _Answer:
        user = self._users[call.login]
        if user.type == "Bot":
            raise _Reply(_error(403, "Resource not accessible by integration"))
        return _Answer(200, self._private_user_json(user), "private-user")

    def _get_repo(self, call: _Call) -> _Answer:
        repo = self._visible_repo(call.login, *call.args)
        return _Answer(200, self._full_repo_json(repo, call.login), "full-repository")

    def _get_pull(self, call: _Call) -> _Answer:
        issue = self._visible_issue(call)
        if issue.pull is None:
            raise _Reply(_not_found())
        return _Answer(200, self._pull_json(issue), "pull-request")

    def _list_pulls(self, call: _Call) -> _Answer:
        """``GET /repos/{o}/{r}/pulls`` with GitHub's ``state``, ``head`` and ``base`` filters."""
        owner, name = call.args
        self._visible_repo(call.login, owner, name)
        state = call.query.get("state", "open")
        head = call.query.get("head")
        base = call.query.get("base")
        with self._lock:
            pulls = [
                i
                for (o, n, _), i in sorted(self._issues.items(), key=lambda kv: -kv[0][2])
                if (o, n) == (owner, name) and i.pull is not None
            ]
        chosen = [
            i
            for i in pulls
            if i.pull is not None
            and (state in ("all", i.pull.state))
            and (head is None or f"{(i.pull.head_repo or i.repo).owner}:{i.pull.head_ref}" == head)
            and (base is None or i.pull.base_ref == base)
        ]
        if call.query.get("sort") == "updated":
            newest_first = call.query.get("direction", "desc") == "desc"
            chosen.sort(key=lambda i: i.updated_at, reverse=newest_first)
        path = f"{self.api_prefix}/repos/{owner}/{name}/pulls"
        page, headers = self._page_of(chosen, call.query, path)
        payload = [self._pull_simple_json(i) for i in page]
        return _Answer(200, payload, "pull-request-simple[]", headers)

    def _list_org_repos(self, call: _Call) -> _Answer:
        """``GET /orgs/{org}/repos``: the organisation's repositories the caller can see."""
        (org,) = call.args
        with self._lock:
            owner = self._users.get(org)
            repos = [
                r
                for r in sorted(self._repos.values(), key=lambda r: r.full_name)
                if r.owner == org and (not r.private or call.login == org)
            ]
        if owner is None or owner.type != "Organization":
            raise _Reply(_not_found())
        page, headers = self._page_of(repos, call.query, f"{self.api_prefix}/orgs/{org}/repos")
        return _Answer(200, [self._repo_json(r) for r in page], "minimal-repository[]", headers)

    def _pull_issue(self, call: _Call) -> FakeIssue:
        issue = self._visible_issue(_Call(call.login, call.query, call.body, call.args[:3]))
        if issue.pull is None:
            raise _Reply(_not_found())
        return issue

    def _pull_api(self, issue: FakeIssue) -> tuple[str, str]:
        repo = issue.repo.full_name
        return f"{self.api_url}/repos/{repo}/pulls/{issue.number}", f"{self.web_url}/{repo}"

    def _create_review(self, call: _Call) -> _Answer:
        """``POST .../pulls/{n}/reviews``: one review and all its inline comments, or a 422
        for the whole of it when one comment is not on a line of the PR's diff."""
        issue = self._pull_issue(call)
        pull = issue.pull
        assert pull is not None
        try:
            state = validate_review_request(call.body, own_pr=call.login == issue.author)
            commit_id = str(call.body.get("commit_id") or pull.head_sha)
            comments = call.body.get("comments") or []
            diff = self._diff_at(issue, commit_id)
            placed = [place_comment(c, diff, pull.too_large) for c in comments]
        except ReviewRejected as rejected:
            raise _Reply(
                _Answer(422, rejection_json(rejected.errors), "validation-error-simple")
            ) from None
        with self._lock:
            review = FakeReview(
                next(self._ids),
                issue.number,
                call.login,
                call.body.get("body") or "",
                state,
                commit_id,
            )
            self._reviews.append((issue, review))
            for request, where in zip(comments, placed, strict=True):
                thread = FakeReviewThread(
                    id=f"PRRT_kwDO{next(self._ids):08d}",
                    path=where.path,
                    line=where.line,
                    comments=[],
                    start_line=where.start_line,
                )
                comment = FakeReviewComment(
                    next(self._ids), review.id, issue.number, call.login, request["body"],
                    where, commit_id, thread.id,
                )  # fmt: skip
                thread.comments.append(FakeThreadComment(comment.id, call.login, comment.body))
                self._threads.setdefault(
                    (issue.repo.owner, issue.repo.name, issue.number), []
                ).append(thread)
                self._review_comments.append((issue, comment))
        api, web = self._pull_api(issue)
        user = self._user_json(self._users[call.login])
        return _Answer(200, review_json(review, user, api, web), "pull-request-review")

    def _diff_at(self, issue: FakeIssue, commit_id: str) -> dict[str, Any]:
        pull, git_dir = issue.pull, issue.repo.git_dir
        assert pull is not None
        if git_dir is None:
            return {}
        try:
            return pull_diff(git_dir, pull.base_sha, commit_id, pull.diff_options)
        except LookupError:
            raise ReviewRejected(
                [f"commit_id {commit_id} is not part of the pull request"]
            ) from None

    def _pull_file_entries(self, issue: FakeIssue) -> list[dict[str, Any]]:
        pull, git_dir = issue.pull, issue.repo.git_dir
        assert pull is not None
        if git_dir is None:
            return []
        return pull_files(git_dir, pull.base_sha, pull.head_sha, pull.diff_options)

    def _list_pull_files(self, call: _Call) -> _Answer:
        """``GET .../pulls/{n}/files``: each file's patch (none for a file too large to show)."""
        issue = self._pull_issue(call)
        pull = issue.pull
        assert pull is not None
        entries = self._pull_file_entries(issue)[:PULL_FILES_LIMIT]  # GitHub lists 3,000 at most
        owner, name, number = call.args[:3]
        page, headers = self._page_of(
            entries, call.query, f"{self.api_prefix}/repos/{owner}/{name}/pulls/{number}/files"
        )
        web = f"{self.web_url}/{owner}/{name}"
        payload = []
        for entry in page:
            item = {
                "sha": entry["sha"],
                "filename": entry["filename"],
                "status": entry["status"],
                "additions": entry["additions"],
                "deletions": entry["deletions"],
                "changes": entry["additions"] + entry["deletions"],
                "blob_url": f"{web}/blob/{pull.head_sha}/{entry['filename']}",
                "raw_url": f"{web}/raw/{pull.head_sha}/{entry['filename']}",
                "contents_url": f"{self.api_url}/repos/{owner}/{name}/contents/"
                f"{entry['filename']}?ref={pull.head_sha}",
            }
            if entry["patch"] is not None and entry["filename"] not in pull.too_large:
                item["patch"] = entry["patch"]
            if "previous" in entry:
                item["previous_filename"] = entry["previous"]
            payload.append(item)
        return _Answer(200, payload, "diff-entry[]", headers)

    def _list_reviews(self, call: _Call) -> _Answer:
        issue = self._pull_issue(call)
        with self._lock:
            items = [review for target, review in self._reviews if target is issue]
        owner, name, number = call.args[:3]
        page, headers = self._page_of(
            items, call.query, f"{self.api_prefix}/repos/{owner}/{name}/pulls/{number}/reviews"
        )
        api, web = self._pull_api(issue)
        payload = [review_json(r, self._user_json(self._users[r.author]), api, web) for r in page]
        return _Answer(200, payload, "pull-request-review[]", headers)

    def _review_comment_page(self, call: _Call, review_id: int | None, schema: str) -> _Answer:
        issue = self._pull_issue(call)
        with self._lock:
            items = [
                c
                for target, c in self._review_comments
                if target is issue and (review_id is None or c.review_id == review_id)
            ]
        path = (
            self.api_prefix
            + "/repos/"
            + "/".join(call.args[:2])
            + f"/pulls/{issue.number}/comments"
        )
        page, headers = self._page_of(items, call.query, path)
        api, web = self._pull_api(issue)
        payload = [
            review_comment_json(c, self._user_json(self._users[c.author]), api, web) for c in page
        ]
        return _Answer(200, payload, schema, headers)

    def _reply_to_review_comment(self, call: _Call) -> _Answer:
        """``POST .../pulls/{n}/comments/{id}/replies``: a comment in that comment's thread;
        ``in_reply_to_id`` names the thread's first comment (a reply to a reply included)."""
        issue = self._pull_issue(call)
        docs = f"{DOCS}/pulls/comments#create-a-reply-for-a-review-comment"
        text = _validated_comment_body(call.body, docs=docs, resource="PullRequestReviewComment")
        with self._lock:
            target = next(
                (c for i, c in self._review_comments if i is issue and c.id == int(call.args[3])),
                None,
            )
            thread = self.thread_state(target.thread_id) if target is not None else None
        if thread is None:
            raise _Reply(_not_found())
        comment = self._add_thread_comment(issue, thread[1], call.login, text)
        api, web = self._pull_api(issue)
        payload = review_comment_json(comment, self._user_json(self._users[call.login]), api, web)
        return _Answer(201, payload, "pull-request-review-comment", {"location": payload["url"]})

    def _get_review_comment(self, call: _Call) -> _Answer:
        """``GET .../pulls/comments/{id}``: one review comment of any PR of the repository."""
        owner, name, comment_id = call.args
        repo = self._visible_repo(call.login, owner, name)
        with self._lock:
            found = next(
                ((i, c) for i, c in self._review_comments
                 if i.repo is repo and c.id == int(comment_id)),
                None,
            )  # fmt: skip
        if found is None:
            raise _Reply(_not_found())
        issue, comment = found
        api, web = self._pull_api(issue)
        user = self._user_json(self._users[comment.author])
        return _Answer(
            200, review_comment_json(comment, user, api, web), "pull-request-review-comment"
        )

    def _collaborator_permission(self, call: _Call) -> _Answer:
        """``GET .../collaborators/{username}/permission``: the user's role on the repository
        (asking needs push access, as on GitHub, except about oneself)."""
        owner, name, username = call.args
        repo = self._visible_repo(call.login, owner, name)
        user = self.user_state(username)
        if user is None:
            raise _Reply(_not_found())
        if username != call.login and not self.can_push(call.login, repo, repo.default_branch):
            raise _Reply(_error(403, "Must have push access to view collaborator permission."))
        role = repo.role_of(username)
        collaborator = self._user_json(user) | {
            "role_name": role,
            "permissions": {p: p in ROLE_PERMISSIONS[role] for p in ROLE_PERMISSIONS["admin"]},
        }
        payload = {"permission": LEGACY_PERMISSION[role], "role_name": role, "user": collaborator}
        return _Answer(200, payload, "repository-collaborator-permission")

    def _list_review_comments(self, call: _Call) -> _Answer:
        return self._review_comment_page(call, None, "pull-request-review-comment[]")

    def _list_one_reviews_comments(self, call: _Call) -> _Answer:
        return self._review_comment_page(call, int(call.args[3]), "review-comment[]")

    def _list_check_runs(self, call: _Call) -> _Answer:
        owner, name, ref = call.args
        self._visible_repo(call.login, owner, name)
        with self._lock:
            runs = [
                r
                for r in self._check_runs.values()
                if r.repo == f"{owner}/{name}" and r.head_sha == ref
            ]
        path = f"{self.api_prefix}/repos/{owner}/{name}/commits/{ref}/check-runs"
        page, headers = self._page_of(runs, call.query, path)
        app = actions_app_json(
            self._user_json(self.add_user("github", type="Organization")), self.web_url
        )
        payload = {
            "total_count": len(runs),
            "check_runs": [check_run_json(r, self.api_url, self.web_url, app) for r in page],
        }
        return _Answer(200, payload, "check-runs-list", headers)

    def _combined_status(self, call: _Call) -> _Answer:
        owner, name, ref = call.args
        repo = self._visible_repo(call.login, owner, name)
        with self._lock:
            statuses = [s for s in self._statuses if s.repo == repo.full_name and s.sha == ref]
        latest: dict[str, FakeStatus] = {}
        for status in statuses:
            latest[status.context] = status  # GitHub keeps the latest per context
        api = f"{self.api_url}/repos/{repo.full_name}"
        payload = {
            "state": combined_state(list(latest.values())),
            "statuses": [status_json(s, self.api_url, self.web_url) for s in latest.values()],
            "sha": ref,
            "total_count": len(latest),
            "repository": self._repo_json(repo),
            "commit_url": f"{api}/commits/{ref}",
            "url": f"{api}/commits/{ref}/status",
        }
        return _Answer(200, payload, "combined-commit-status")

    def _job_logs(self, call: _Call) -> _Answer:
        """GitHub answers 302 with a short-lived download URL; the log lives there."""
        owner, name, job_id = call.args
        self._visible_repo(call.login, owner, name)
        with self._lock:
            run = self._check_runs.get(int(job_id))
        if run is None or run.repo != f"{owner}/{name}":
            raise _Reply(_not_found())
        if run.log is None:
            raise _Reply(_error(410, "Logs have expired or are not available"))
        signature = f"sig{next(self._ids)}"
        with self._lock:
            self._downloads[signature] = run.id
        location = f"{self.web_url}/_download/job-logs/{run.id}?sig={signature}"
        return _Answer(302, None, "redirect", {"location": location})

    def _download_job_log(self, job_id: int, signature: str) -> _Answer:
        with self._lock:
            valid = self._downloads.get(signature) == job_id
            run = self._check_runs.get(job_id)
        if not valid or run is None or run.log is None:
            return _Answer(403, "AuthenticationFailed", "text")
        return _Answer(200, run.log, "text")

    def _page_of(
        self, items: list[Any], query: dict[str, str], path: str
    ) -> tuple[list[Any], dict[str, str]]:
        per_page = min(max(_int(query.get("per_page"), DEFAULT_PER_PAGE), 1), MAX_PER_PAGE)
        page = max(_int(query.get("page"), 1), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        link = self._link_header(path, query, page, last, per_page)
        return items[(page - 1) * per_page : page * per_page], ({"link": link} if link else {})

    def _get_issue(self, call: _Call) -> _Answer:
        return _Answer(200, self._issue_json(self._visible_issue(call)), "issue")

    def _list_comments(self, call: _Call) -> _Answer:
        issue = self._visible_issue(call)
        with self._lock:
            items = sorted(
                (c for c in self._comments.values() if c.issue is issue), key=lambda c: c.id
            )
        per_page = min(max(_int(call.query.get("per_page"), DEFAULT_PER_PAGE), 1), MAX_PER_PAGE)
        page = max(_int(call.query.get("page"), 1), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        owner, name, number = call.args
        path = f"{self.api_prefix}/repos/{owner}/{name}/issues/{number}/comments"
        link = self._link_header(path, call.query, page, last, per_page)
        payload = [self._comment_json(c) for c in chunk]
        return _Answer(200, payload, "issue-comment[]", {"link": link} if link else {})

    def _create_comment(self, call: _Call) -> _Answer:
        issue = self._visible_issue(call)
        text = _validated_comment_body(call.body)
        now = datetime.now(UTC)
        with self._lock:
            comment = FakeComment(next(self._ids), issue, call.login, text, now, now)
            self._comments[comment.id] = comment
        payload = self._comment_json(comment)
        return _Answer(201, payload, "issue-comment", {"location": payload["url"]})

    def _get_comment(self, call: _Call) -> _Answer:
        return _Answer(200, self._comment_json(self._visible_comment(call)), "issue-comment")

    def _edit_comment(self, call: _Call) -> _Answer:
        comment = self._visible_comment(call)
        text = _validated_comment_body(call.body)
        with self._lock:
            comment.body = text
            comment.updated_at = datetime.now(UTC)
        return _Answer(200, self._comment_json(comment), "issue-comment")

    def _issue_installation_token(self, installation_id: int, token: str | None) -> _Answer:
        """``POST /app/installations/{id}/access_tokens``: the JWT must be the app's."""
        with self._lock:
            app = self._apps.get(installation_id)
        if app is None:
            raise _Reply(_not_found())
        try:
            claims = jwt.decode(token or "", app.public_key_pem, algorithms=["RS256"])
        except jwt.PyJWTError as exc:
            raise _Reply(_error(401, f"A JSON web token could not be decoded ({exc})")) from exc
        if str(claims.get("iss")) != app.app_id:
            raise _Reply(_error(401, "Bad credentials"))
        installation_token = f"ghs_fake{next(self._ids)}"
        with self._lock:
            self._tokens[installation_token] = f"{app.slug}[bot]"
        payload = {
            "token": installation_token,
            "expires_at": _timestamp(datetime.now(UTC) + timedelta(hours=1)),
            "permissions": {"issues": "write", "pull_requests": "write", "contents": "read"},
            "repository_selection": "all",
        }
        return _Answer(201, payload, "installation-token")

    # --- access ---------------------------------------------------------------------------

    def _visible_repo(self, login: str, owner: str, name: str, *_: str) -> FakeRepo:
        """The repository, or 404 as GitHub answers for missing and for hidden ones alike."""
        with self._lock:
            repo = self._repos.get((owner, name))
        if repo is None or (repo.private and login != owner):
            raise _Reply(_not_found())
        return repo

    def _visible_issue(self, call: _Call) -> FakeIssue:
        owner, name, number = call.args
        self._visible_repo(call.login, owner, name)
        with self._lock:
            issue = self._issues.get((owner, name, int(number)))
        if issue is None:
            raise _Reply(_not_found())
        return issue

    def _visible_comment(self, call: _Call) -> FakeComment:
        owner, name, comment_id = call.args
        repo = self._visible_repo(call.login, owner, name)
        with self._lock:
            comment = self._comments.get(int(comment_id))
        if comment is None or comment.issue.repo is not repo:
            raise _Reply(_not_found())
        return comment

    # --- GitHub's JSON shapes -------------------------------------------------------------

    def _user_json(self, user: FakeUser) -> Json:
        api = f"{self.api_url}/users/{user.login}"
        return {
            "login": user.login,
            "id": user.id,
            "node_id": f"U_kgDO{user.id:08d}",
            "avatar_url": f"{self.web_url}/avatars/u/{user.id}?v=4",
            "gravatar_id": "",
            "url": api,
            "html_url": f"{self.web_url}/{user.login}",
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "type": user.type,
            "user_view_type": "public",
            "site_admin": False,
        }

    def _private_user_json(self, user: FakeUser) -> Json:
        joined = _timestamp(datetime(2020, 1, 1, tzinfo=UTC))
        return self._user_json(user) | {
            "name": user.name,
            "company": None,
            "blog": "",
            "location": None,
            "email": None,
            "hireable": None,
            "bio": None,
            "twitter_username": None,
            "notification_email": None,
            "public_repos": sum(1 for r in self._repos.values() if r.owner == user.login),
            "public_gists": 0,
            "followers": 0,
            "following": 0,
            "created_at": joined,
            "updated_at": joined,
            "private_gists": 0,
            "total_private_repos": 0,
            "owned_private_repos": 0,
            "disk_usage": 0,
            "collaborators": 0,
            "two_factor_authentication": True,
            "plan": {
                "name": "free",
                "space": 976562499,
                "private_repos": 10000,
                "collaborators": 0,
            },
        }

    def _repo_json(self, repo: FakeRepo) -> Json:
        api = f"{self.api_url}/repos/{repo.full_name}"
        created = _timestamp(repo.created_at)
        host = urlsplit(self.web_url).netloc
        return {
            "id": repo.id,
            "node_id": f"R_kgDO{repo.id:08d}",
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self._user_json(self._users[repo.owner]),
            "html_url": f"{self.web_url}/{repo.full_name}",
            "description": None,
            "fork": repo.fork,
            "url": api,
            "archive_url": f"{api}/{{archive_format}}{{/ref}}",
            "assignees_url": f"{api}/assignees{{/user}}",
            "blobs_url": f"{api}/git/blobs{{/sha}}",
            "branches_url": f"{api}/branches{{/branch}}",
            "collaborators_url": f"{api}/collaborators{{/collaborator}}",
            "comments_url": f"{api}/comments{{/number}}",
            "commits_url": f"{api}/commits{{/sha}}",
            "compare_url": f"{api}/compare/{{base}}...{{head}}",
            "contents_url": f"{api}/contents/{{+path}}",
            "contributors_url": f"{api}/contributors",
            "deployments_url": f"{api}/deployments",
            "downloads_url": f"{api}/downloads",
            "events_url": f"{api}/events",
            "forks_url": f"{api}/forks",
            "git_commits_url": f"{api}/git/commits{{/sha}}",
            "git_refs_url": f"{api}/git/refs{{/sha}}",
            "git_tags_url": f"{api}/git/tags{{/sha}}",
            "git_url": f"git://{host}/{repo.full_name}.git",
            "issue_comment_url": f"{api}/issues/comments{{/number}}",
            "issue_events_url": f"{api}/issues/events{{/number}}",
            "issues_url": f"{api}/issues{{/number}}",
            "keys_url": f"{api}/keys{{/key_id}}",
            "labels_url": f"{api}/labels{{/name}}",
            "languages_url": f"{api}/languages",
            "merges_url": f"{api}/merges",
            "milestones_url": f"{api}/milestones{{/number}}",
            "notifications_url": f"{api}/notifications{{?since,all,participating}}",
            "pulls_url": f"{api}/pulls{{/number}}",
            "releases_url": f"{api}/releases{{/id}}",
            "ssh_url": f"git@{host}:{repo.full_name}.git",
            "stargazers_url": f"{api}/stargazers",
            "statuses_url": f"{api}/statuses/{{sha}}",
            "subscribers_url": f"{api}/subscribers",
            "subscription_url": f"{api}/subscription",
            "tags_url": f"{api}/tags",
            "teams_url": f"{api}/teams",
            "trees_url": f"{api}/git/trees{{/sha}}",
            "clone_url": repo.clone_url,
            "mirror_url": None,
            "hooks_url": f"{api}/hooks",
            "svn_url": f"{self.web_url}/{repo.full_name}",
            "homepage": None,
            "language": "Python",
            "forks_count": 0,
            "stargazers_count": 0,
            "watchers_count": 0,
            "size": 1,
            "default_branch": repo.default_branch,
            "open_issues_count": 0,
            "is_template": False,
            "topics": [],
            "has_issues": True,
            "has_projects": True,
            "has_wiki": False,
            "has_pages": False,
            "has_downloads": True,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": "private" if repo.private else "public",
            "pushed_at": created,
            "created_at": created,
            "updated_at": created,
            "allow_forking": True,
            "web_commit_signoff_required": False,
            "license": None,
            "forks": 0,
            "open_issues": 0,
            "watchers": 0,
        }

    def _full_repo_json(self, repo: FakeRepo, login: str) -> Json:
        """``full-repository`` as ``login`` sees it: ``permissions`` are that user's."""
        granted = ROLE_PERMISSIONS[repo.role_of(login)]
        lineage = (
            {"parent": self._repo_json(repo.parent), "source": self._repo_json(repo.parent)}
            if repo.parent is not None
            else {}
        )
        return (
            self._repo_json(repo)
            | lineage
            | {
                "subscribers_count": 0,
                "network_count": 0,
                "permissions": {p: p in granted for p in ROLE_PERMISSIONS["admin"]},
            }
        )

    def _issue_comment_count(self, issue: FakeIssue) -> int:
        with self._lock:
            return sum(1 for c in self._comments.values() if c.issue is issue)

    def _pull_json(self, issue: FakeIssue) -> Json:
        """``pull-request``: the simple shape plus merge state and counts."""
        pull = issue.pull
        assert pull is not None
        try:
            files = self._pull_file_entries(issue)
        except LookupError:  # seeded with commits its repository does not hold
            files = []
        return self._pull_simple_json(issue) | {
            "merged": pull.merged,
            "mergeable": pull.mergeable if pull.state == "open" else None,
            "rebaseable": None,
            "mergeable_state": pull.mergeable_state if pull.state == "open" else "unknown",
            "merged_by": None,
            "comments": self._issue_comment_count(issue),
            "review_comments": 0,
            "maintainer_can_modify": pull.maintainer_can_modify,
            "commits": 1,
            "additions": sum(f["additions"] for f in files),
            "deletions": sum(f["deletions"] for f in files),
            "changed_files": len(files),
        }

    def _pull_simple_json(self, issue: FakeIssue) -> Json:
        pull = issue.pull
        assert pull is not None
        repo = issue.repo
        api = f"{self.api_url}/repos/{repo.full_name}"
        html = f"{self.web_url}/{repo.full_name}/pull/{issue.number}"
        created = _timestamp(issue.created_at)

        def side(ref: str, sha: str, where: FakeRepo) -> Json:
            return {
                "label": f"{where.owner}:{ref}",
                "ref": ref,
                "sha": sha,
                "user": self._user_json(self._users[where.owner]),
                "repo": self._repo_json(where),
            }

        links = {
            "self": f"{api}/pulls/{issue.number}",
            "html": html,
            "issue": f"{api}/issues/{issue.number}",
            "comments": f"{api}/issues/{issue.number}/comments",
            "review_comments": f"{api}/pulls/{issue.number}/comments",
            "review_comment": f"{api}/pulls/comments{{/number}}",
            "commits": f"{api}/pulls/{issue.number}/commits",
            "statuses": f"{api}/statuses/{pull.head_sha}",
        }
        return {
            "url": links["self"],
            "id": pull.id,
            "node_id": f"PR_kwDO{pull.id:08d}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": links["issue"],
            "commits_url": links["commits"],
            "review_comments_url": links["review_comments"],
            "review_comment_url": links["review_comment"],
            "comments_url": links["comments"],
            "statuses_url": links["statuses"],
            "number": issue.number,
            "state": pull.state,
            "locked": False,
            "title": issue.title,
            "user": self._user_json(self._users[issue.author]),
            "body": issue.body,
            "labels": [],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": created,
            "updated_at": _timestamp(issue.updated_at),
            "closed_at": None
            if pull.state == "open"
            else _timestamp(issue.closed_at or issue.updated_at),
            "merged_at": _timestamp(issue.closed_at or issue.updated_at) if pull.merged else None,
            "merge_commit_sha": pull.head_sha if pull.merged else None,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": side(pull.head_ref, pull.head_sha, pull.head_repo or repo),
            "base": side(pull.base_ref, pull.base_sha, repo),
            "_links": {name: {"href": href} for name, href in links.items()},
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "draft": pull.draft,
        }

    def _issue_json(self, issue: FakeIssue) -> Json:
        repo = issue.repo
        api = f"{self.api_url}/repos/{repo.full_name}/issues/{issue.number}"
        kind = "pull" if issue.pull else "issues"
        html = f"{self.web_url}/{repo.full_name}/{kind}/{issue.number}"
        created = _timestamp(issue.created_at)
        payload: Json = {
            "id": issue.id,
            "node_id": f"I_kwDO{issue.id:08d}",
            "url": api,
            "repository_url": f"{self.api_url}/repos/{repo.full_name}",
            "labels_url": f"{api}/labels{{/name}}",
            "comments_url": f"{api}/comments",
            "events_url": f"{api}/events",
            "html_url": html,
            "number": issue.number,
            "state": "open",
            "state_reason": None,
            "title": issue.title,
            "body": issue.body,
            "user": self._user_json(self._users[issue.author]),
            "labels": [],
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "locked": False,
            "active_lock_reason": None,
            "comments": self._issue_comment_count(issue),
            "closed_at": None,
            "created_at": created,
            "updated_at": created,
            "author_association": "CONTRIBUTOR",
            "reactions": self._reactions_json(api),
        }
        if issue.pull is not None:
            pulls = f"{self.api_url}/repos/{repo.full_name}/pulls/{issue.number}"
            payload["pull_request"] = {
                "url": pulls,
                "html_url": html,
                "diff_url": f"{html}.diff",
                "patch_url": f"{html}.patch",
                "merged_at": None,
            }
        return payload

    def _comment_json(self, comment: FakeComment) -> Json:
        issue = comment.issue
        repo = issue.repo
        api = f"{self.api_url}/repos/{repo.full_name}/issues/comments/{comment.id}"
        kind = "pull" if issue.pull else "issues"
        issue_html = f"{self.web_url}/{repo.full_name}/{kind}/{issue.number}"
        return {
            "id": comment.id,
            "node_id": f"IC_kwDO{comment.id:08d}",
            "url": api,
            "html_url": f"{issue_html}#issuecomment-{comment.id}",
            "body": comment.body,
            "user": self._user_json(self._users[comment.author]),
            "created_at": _timestamp(comment.created_at),
            "updated_at": _timestamp(comment.updated_at),
            "issue_url": f"{self.api_url}/repos/{repo.full_name}/issues/{issue.number}",
            "author_association": "OWNER" if comment.author == repo.owner else "NONE",
            "performed_via_github_app": None,
            "reactions": self._reactions_json(api),
        }

    @staticmethod
    def _reactions_json(url: str) -> Json:
        counts = dict.fromkeys(
            ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"), 0
        )
        return {"url": f"{url}/reactions", "total_count": 0, **counts}

    def _link_header(
        self, path: str, query: dict[str, str], page: int, last: int, per_page: int
    ) -> str:
        """RFC 5988 links in GitHub's order: prev, next, last, first (only those that apply)."""

        def url(target: int) -> str:
            params = query | {"per_page": str(per_page), "page": str(target)}
            return f"{self.web_url}{path}?{urlencode(params)}"

        links: list[tuple[int, str]] = []
        if page > 1:
            links.append((page - 1, "prev"))
        if page < last:
            links += [(page + 1, "next"), (last, "last")]
        if page > 1:
            links.append((1, "first"))
        return ", ".join(f'<{url(target)}>; rel="{rel}"' for target, rel in links)


def _bearer(authorization: str) -> str | None:
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() in {"token", "bearer"} and value.strip():
        return value.strip()
    return None


def _int(value: str | None, default: int) -> int:
    return int(value) if value is not None and value.isdigit() else default


def _error(status: int, message: str) -> _Answer:
    body = {"message": message, "documentation_url": DOCS, "status": str(status)}
    return _Answer(status, body, "basic-error")


def _not_found() -> _Answer:
    return _error(404, "Not Found")


def _validated_comment_body(
    body: Json,
    docs: str = f"{DOCS}/issues/comments#create-an-issue-comment",
    resource: str = "IssueComment",
) -> str:
    """The ``body`` member of a create/edit request, refused with 422 as GitHub refuses it."""
    text = body.get("body") if isinstance(body, dict) else None
    if not isinstance(text, str):
        problem: dict[str, Any] = {
            "message": 'Invalid request. "body" wasn\'t supplied.',
            "documentation_url": docs,
            "status": "422",
        }
        raise _Reply(_Answer(422, problem, "validation-error"))
    if len(text) > COMMENT_MAX_CHARS:
        too_long = {
            "resource": resource,
            "code": "custom",
            "field": "body",
            "message": f"body is too long (maximum is {COMMENT_MAX_CHARS} characters)",
        }
        problem = {
            "message": "Validation Failed",
            "errors": [too_long],
            "documentation_url": docs,
            "status": "422",
        }
        raise _Reply(_Answer(422, problem, "validation-error"))
    return text


class _Handler(BaseHTTPRequestHandler):
    """Speaks HTTP/1.1 with keep-alive, as GitHub does; all logic lives in :class:`FakeGitHub`."""

    fake: FakeGitHub
    protocol_version = "HTTP/1.1"
    timeout = 30

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw_body = self.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in self.headers.items()}
        status, body, extra = self.fake.handle(self.command, self.path, headers, raw_body)
        if isinstance(body, str):  # a downloaded file (job logs), not JSON
            payload, content_type = body.encode(), "text/plain; charset=utf-8"
        else:
            payload = json.dumps(body).encode() if body is not None else b""
            content_type = "application/json; charset=utf-8"
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the exchange log is the record."""


@contextmanager
def running_fake_github(api_prefix: str = "") -> Iterator[FakeGitHub]:
    fake = FakeGitHub(api_prefix=api_prefix).start()
    try:
        yield fake
    finally:
        fake.stop()
