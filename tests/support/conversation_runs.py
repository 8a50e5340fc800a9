"""Shared pieces of conversation tests: a reviewed PR on the loopback GitHub, people who
reply through the real REST API, signed webhook deliveries, and waiting for the workflow.

The review is posted by prflow's account with real PyGithub (the fake places each inline
comment on the PR's real diff, so every thread has GitHub's diff hunk); each finding
comment carries its fingerprint and credit line as prflow renders them.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from github import Auth, Github
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError

from prflow.agent.planning import phase_plan
from prflow.config import Settings
from prflow.conversation.delivery import signal_with_start
from prflow.conversation.events import ReviewPosted
from prflow.conversation.kind import CONVERSATION, PHASE, conversation_id
from prflow.conversation.state import ConversationState
from prflow.impact.evidence import normalise_whitespace
from prflow.pr_identifier import PullRequestRef
from prflow.queue.delivery import queue_names
from prflow.review.fingerprints import finding_fingerprint, fingerprint_marker
from prflow.review.models import FindingCategory
from tests.queue.receiver import SECRET, serving_receiver
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN
from tests.support.fixtures_temporal import run_worker
from tests.support.sample_repos import build_sample_repo, commit_all, git, write_files
from tests.support.webhook_payloads import Delivery
from workflows.conversation import ConversationWorkflow

REPO = "shop"
NUMBER = 3
TAX_LINE = "def total(cart: Cart, tax: float) -> float:"
PRICING_LINE = "    return int(amount * (1 - percent / 100))"


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    anchor: str
    title: str
    dimension: str

    @property
    def fingerprint(self) -> str:
        return finding_fingerprint(
            self.path, FindingCategory.correctness, normalise_whitespace(self.anchor), self.title
        )

    def body(self) -> str:
        return (
            f"**🟠 Important: {self.title}**\n\n{self.title}, explained for the author.\n\n"
            f"<sub>Found by {self.dimension} · confidence 0.80 · correctness · "
            f"model-written</sub>\n{fingerprint_marker(self.fingerprint)}"
        )


TAX = Finding("shop/cart.py", 9, TAX_LINE, "total() lost its tax default", "Cart API")
PRICING = Finding("shop/pricing.py", 2, PRICING_LINE, "discount() truncates cents", "Pricing")


@dataclass
class ReviewedPr:
    fake: FakeGitHub
    work: Path
    bare: Path
    pr: PullRequestRef
    threads: dict[str, int] = field(default_factory=dict)
    """Finding title → the id of the inline comment that opened its thread."""

    @property
    def repo_name(self) -> str:
        return f"{self.pr.owner}/{self.pr.repo}"

    def gh(self, token: str = FAKE_GITHUB_TOKEN) -> Github:
        return Github(base_url=self.fake.api_url, auth=Auth.Token(token))

    def pull(self, token: str = FAKE_GITHUB_TOKEN) -> Any:
        return self.gh(token).get_repo(self.repo_name).get_pull(self.pr.number)

    def person(self, login: str, *, bot: bool = False) -> str:
        """A GitHub account that can comment on the PR; returns its token."""
        token = f"ghp_{login.replace('[', '_').replace(']', '_')}_{secrets.token_hex(4)}"
        self.fake.add_user(login, token=token, type="Bot" if bot else "User")
        return token

    def reply(self, token: str, finding: Finding, body: str) -> Any:
        """A reply in ``finding``'s thread, posted through the REST API as its author."""
        return self.pull(token).create_review_comment_reply(self.threads[finding.title], body)

    def thread_comments(self, finding: Finding) -> list[Any]:
        root = self.threads[finding.title]
        comments = self.pull().get_review_comments()
        return [c for c in comments if root in (c.id, c.in_reply_to_id)]

    def push(self, files: dict[str, str | bytes | None]) -> str:
        """Commit on the PR branch and push it, moving the PR head as GitHub would."""
        git(self.work, "checkout", "-q", "feature")
        write_files(self.work, files)
        sha = commit_all(self.work, "address review")
        git(self.work, "push", "-q", str(self.bare), "feature")
        self.fake.push(self.pr.owner, self.pr.repo, self.pr.number, sha)
        return sha


def publish_pr(
    fake: FakeGitHub,
    work: Path,
    bare: Path,
    pr: PullRequestRef,
    title: str,
    head_owner: str | None = None,
) -> None:
    """Clone ``work`` into the bare repository ``bare`` and open ``pr`` on the fake GitHub:
    ``feature`` into ``main``, from ``head_owner``'s fork when given."""
    git(bare.parent, "clone", "-q", "--bare", str(work), str(bare))
    fake.add_pull_request(
        pr.owner,
        pr.repo,
        pr.number,
        bare_repo_path=bare,
        base_sha=git(work, "rev-parse", "main"),
        head_sha=git(work, "rev-parse", "feature"),
        title=title,
        head_owner=head_owner,
    )


def post_review(
    gh: Github, pr: PullRequestRef, head_sha: str, findings: list[Finding]
) -> dict[str, int]:
    """prflow's review as prflow's account posts it, one inline comment per finding; the id
    of the comment that opened each finding's thread, by the finding's fingerprint."""
    pull = gh.get_repo(f"{pr.owner}/{pr.repo}").get_pull(pr.number)
    pull.create_review(
        commit=gh.withLazy(True).get_repo(f"{pr.owner}/{pr.repo}").get_commit(head_sha),
        body="prflow review",
        event="COMMENT",
        comments=[
            {"path": f.path, "line": f.line, "side": "RIGHT", "body": f.body()} for f in findings
        ],
    )
    return {
        f.fingerprint: comment.id
        for comment in pull.get_review_comments()
        for f in findings
        if f.fingerprint in comment.body
    }


def open_pr(
    fake: FakeGitHub,
    tmp_path: Path,
    owner: str | None = None,
    head_owner: str | None = None,
    head_files: dict[str, str | bytes | None] | None = None,
) -> ReviewedPr:
    """The sample repository's change as a PR of an organisation of its own (workflow ids
    are global on the session's server), not reviewed yet; with ``head_owner``, from that
    account's fork; ``head_files`` are committed on the PR's branch too."""
    pr = PullRequestRef(owner=owner or f"octo-{secrets.token_hex(3)}", repo=REPO, number=NUMBER)
    work = build_sample_repo(tmp_path / "work")
    if head_files:
        git(work, "checkout", "-q", "feature")
        write_files(work, head_files)
        commit_all(work, "more of the change")
        git(work, "checkout", "-q", "main")
    bare = tmp_path / "shop.git"
    publish_pr(fake, work, bare, pr, "Reshape the cart API", head_owner)
    return ReviewedPr(fake, work, bare, pr)


def reviewed_pr(
    fake: FakeGitHub,
    tmp_path: Path,
    findings: list[Finding],
    owner: str | None = None,
    head_owner: str | None = None,
    head_files: dict[str, str | bytes | None] | None = None,
) -> ReviewedPr:
    """An open PR with prflow's review posted: one inline comment per finding."""
    reviewed = open_pr(fake, tmp_path, owner, head_owner, head_files)
    head = git(reviewed.work, "rev-parse", "feature")
    roots = post_review(reviewed.gh(), reviewed.pr, head, findings)
    reviewed.threads.update({f.title: roots[f.fingerprint] for f in findings})
    return reviewed


async def open_conversation(
    client: Client,
    settings: Settings,
    pr: PullRequestRef,
    head_sha: str,
    *,
    with_model: bool = True,
    history_limit: int | None = None,
) -> WorkflowHandle[Any, Any]:
    """Start ``pr``'s conversation as a posted review does (signal-with-start)."""
    state = ConversationState(
        pr=pr,
        queues=queue_names(settings),
        plan=phase_plan(settings, CONVERSATION, PHASE) if with_model else None,
        **({} if history_limit is None else {"history_limit": history_limit}),
    )
    await signal_with_start(
        client, state, ReviewPosted(event_id=f"review:{uuid.uuid4()}", head_sha=head_sha)
    )
    return client.get_workflow_handle_for(ConversationWorkflow.run, conversation_id(pr))


async def start_conversation(
    client: Client, settings: Settings, reviewed: ReviewedPr, *, with_model: bool = True
) -> WorkflowHandle[Any, Any]:
    """Start the reviewed PR's conversation at its current head."""
    head = git(reviewed.work, "rev-parse", "feature")
    return await open_conversation(client, settings, reviewed.pr, head, with_model=with_model)


@asynccontextmanager
async def serving_conversation(
    client: Client, settings: Settings, reviewed: ReviewedPr
) -> AsyncIterator[tuple[str, WorkflowHandle[Any, Any]]]:
    """A worker, the webhook receiver and the PR's started conversation: the receiver's URL
    and the conversation's handle, all stopped on exit."""

    async def connect() -> Client:
        return client

    async with (
        run_worker(client, settings),
        serving_receiver(connect, queue_names(settings)) as url,
    ):
        yield url, await start_conversation(client, settings, reviewed)


def posted_by_prflow(comments: list[Any], marker: str) -> list[Any]:
    """The comments prflow's account posted that carry ``marker``."""
    return [c for c in comments if c.user.login == FAKE_GITHUB_LOGIN and marker in c.body]


async def settled(
    handle: WorkflowHandle[Any, Any], events: int, within: float = 90.0
) -> ConversationState:
    """The conversation's state once it handled ``events`` events and has none queued."""
    deadline = time.monotonic() + within
    while True:
        try:
            state: ConversationState = await handle.query(ConversationWorkflow.status)
        except WorkflowQueryFailedError as err:
            # The SDK's 2 s deadlock detector on a worker starved of CPU (the whole suite on
            # 2 cores): the workflow task is retried by Temporal, so ask again in a moment.
            if "TMPRL1101" not in str(err) or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
            continue
        if state.tally.events >= events and not state.pending:
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"conversation did not settle: {state.model_dump_json()}")
        await asyncio.sleep(0.2)


async def send(url: str, delivery: Delivery) -> httpx.Response:
    """POST a signed delivery to the receiver, as GitHub does."""
    async with httpx.AsyncClient() as http:
        return await http.post(
            f"{url}/webhook", content=delivery.body, headers=delivery.headers(SECRET)
        )


def review_comment_delivery(reviewed: ReviewedPr, comment: Any) -> Delivery:
    """``pull_request_review_comment.created`` for ``comment`` (its REST JSON, as GitHub
    sends it in the webhook)."""
    pull = reviewed.pull()
    repo = reviewed.gh().get_repo(reviewed.repo_name)
    payload = {
        "action": "created",
        "comment": comment.raw_data,
        "pull_request": pull.raw_data,
        "repository": repo.raw_data,
        "sender": comment.raw_data["user"],
    }
    return Delivery("pull_request_review_comment", str(uuid.uuid4()), payload)


def thread_delivery(reviewed: ReviewedPr, finding: Finding, action: str, actor: str) -> Delivery:
    """``pull_request_review_thread.<action>`` for ``finding``'s thread, sent by ``actor``."""
    pull = reviewed.pull()
    repo = reviewed.gh().get_repo(reviewed.repo_name)
    comments = [c.raw_data for c in reviewed.thread_comments(finding)]
    payload = {
        "action": action,
        "thread": {"node_id": "PRRT_unused", "comments": comments},
        "pull_request": pull.raw_data,
        "repository": repo.raw_data,
        "sender": {"login": actor, "type": "User"},
    }
    return Delivery("pull_request_review_thread", str(uuid.uuid4()), payload)
