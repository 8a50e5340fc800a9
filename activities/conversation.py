"""Activities of the conversation: start it, read a reply's context, post answers once,
remember verdicts, and resolve the threads a push fixed.

Every write is idempotent by a hidden marker (:mod:`prflow.conversation.markers`):
before posting, the activity looks for its own comment carrying the marker, so a
worker killed between GitHub's answer and Temporal's record posts nothing twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from temporalio import activity

from activities.agent_messages import prepare_prompt
from activities.github.client import github_client
from activities.github.comments import own_login
from activities.github.errors import classified_errors
from activities.github.pulls import fetch_pull_request
from activities.github.review_threads import fetch_review_threads
from activities.github.thread_actions import reply_in_thread, set_thread_resolved
from activities.heartbeats import heartbeating
from activities.llm import llm_configured
from prflow.agent.messages import AgentPrompt
from prflow.agent.planning import phase_plan
from prflow.config import cached_settings
from prflow.conversation import markers, rules
from prflow.conversation.events import IssueCommentEvent, ReviewCommentEvent
from prflow.conversation.holding import anchor_at, anchor_of_hunk, finding_holds, hunk_at_head
from prflow.conversation.kind import CONVERSATION, PHASE
from prflow.conversation.models import (
    OpenConversation,
    PostedReply,
    PostReply,
    ReadReply,
    RecordVerdict,
    ReplyPlan,
    Sweep,
    SweepResult,
)
from prflow.conversation.prompt import (
    SUBMIT_REPLY,
    ReplyTopic,
    ReplyVerdict,
    ThreadComment,
    addressed_body,
    reply_body,
    reply_message,
    system_prompt,
)
from prflow.conversation.state import ConversationState
from prflow.git.repo import GitError, GitRepoReader, resolve_range
from prflow.pr_identifier import PullRequestRef
from prflow.queue.events import command_jobs
from prflow.repo_models import RepoSpec
from prflow.review.fingerprints import fingerprint_of_comment
from prflow.store.finding_verdicts import record_verdict
from prflow.tools.reader import ToolError
from prflow.tools.registry import TOOL_SPECS

if TYPE_CHECKING:
    pass

MAX_THREAD_READ = 100


def _text(reader: GitRepoReader, sha: str, path: str) -> str | None:
    try:
        data = reader.read_file(sha, path)
    except (GitError, ToolError):  # a commit gone after a force-push: the caller falls back
        return None
    return data.decode("utf-8", errors="replace") if data is not None else None


def _anchor(reader: GitRepoReader, comment: Any) -> str:
    """The cited line's text where the finding was posted; the diff hunk's last line else."""
    raw = comment.raw_data
    if raw.get("side", "RIGHT") == "RIGHT" and raw.get("original_commit_id"):
        found = anchor_at(
            _text(reader, raw["original_commit_id"], comment.path), raw.get("original_line")
        )
        if found is not None:
            return found
    return anchor_of_hunk(comment.diff_hunk)


def _db() -> str:
    return cached_settings().resolved_database_url()


def _errors(pr: PullRequestRef, action: str) -> Any:
    return classified_errors(
        action=f"{action} {pr.slug}",
        missing=f"Pull request {pr.slug} was not found",
        permission="read and write access to pull requests (to answer review threads)",
    )


def _ours(login: str | None, author_type: str | None, own: str | None) -> bool:
    """Written by prflow's account; by a bot when the token cannot tell who it is."""
    if own is None:
        return author_type == "Bot"
    return login == own or login == own.removesuffix("[bot]")


# ---------------------------------------------------------------- start


@activity.defn(name="conversation_open")
async def open_conversation(inp: OpenConversation) -> str:
    """Start the PR's conversation, or tell the running one a review was posted; its id."""
    from prflow.conversation.delivery import signal_with_start

    plan = None
    if llm_configured():  # model calls go to the queue the review's calls went to
        configured = phase_plan(cached_settings(), CONVERSATION, PHASE)
        plan = configured.model_copy(update={"task_queue": inp.queues.llm})
    state = ConversationState(pr=inp.pr, queues=inp.queues, plan=plan)
    return await signal_with_start(activity.client(), state, inp.posted)


# ---------------------------------------------------------------- answering


@activity.defn(name="conversation_prepare")
@heartbeating
def prepare_reply(inp: ReadReply) -> ReplyPlan:
    """Whether a comment gets an answer and, if so, the agent's prompt and tools."""
    with _errors(inp.pr, "reading the conversation of"):
        client = github_client()
        own = own_login(client)
        comment = inp.comment
        if _ours(comment.author, comment.author_type, own) or markers.is_prflow_reply(comment.body):
            return ReplyPlan(skip="prflow's own comment")
        if rules.is_bot(comment.author, comment.author_type):
            return ReplyPlan(skip=f"{comment.author} is a bot")
        pull = client.get_repo(f"{inp.pr.owner}/{inp.pr.repo}").get_pull(inp.pr.number)
        asked = inp.question is not None
        if isinstance(comment, ReviewCommentEvent):
            return _review_reply_plan(inp.pr, pull, comment, own, asked=asked)
        return _issue_reply_plan(inp.pr, pull, comment, own, asked=asked)


def _review_reply_plan(
    pr: PullRequestRef, pull: Any, comment: ReviewCommentEvent, own: str | None, *, asked: bool
) -> ReplyPlan:
    root_id = comment.in_reply_to_id or comment.comment_id
    thread = sorted(
        (c for c in pull.get_review_comments() if root_id in (c.id, c.in_reply_to_id)),
        key=lambda c: c.id,
    )
    root = next((c for c in thread if c.id == root_id), None)
    if root is None:
        return ReplyPlan(skip="the thread's first comment is gone")
    opened_by_us = _ours(root.user.login, root.user.type, own)
    fingerprint = fingerprint_of_comment(root.body) if opened_by_us and not asked else None
    if fingerprint is None and not asked and not rules.mentions(comment.body, own):
        return ReplyPlan(skip="not in a prflow thread and prflow is not mentioned")
    marker = markers.reply_marker(comment.comment_id)
    if any(
        _ours(c.user.login, c.user.type, own) and markers.carries(c.body, marker) for c in thread
    ):
        return ReplyPlan(skip="answered already")
    info = fetch_pull_request(pr)
    rng = resolve_range(
        RepoSpec(location=info.clone_url, pr_number=pr.number), info.base_sha, info.head_sha
    )
    reader = GitRepoReader.for_range(rng)
    text = _text(reader, rng.head_sha, root.path)
    anchor = _anchor(reader, root)
    topic = ReplyTopic(
        path=root.path,
        line=root.line or root.original_line,
        finding=markers.finding_text(root.body),
        code_at_head=hunk_at_head(text, anchor, root.line or root.original_line),
        head_sha=rng.head_sha,
        thread=[
            ThreadComment(author=c.user.login, body=c.body or "")
            for c in thread
            if c.id not in (root_id, comment.comment_id)
        ],
        reply=ThreadComment(author=comment.author, body=comment.body),
    )
    return ReplyPlan(
        prompt=_prompt(topic),
        range=rng,
        fingerprint=fingerprint,
        dimension=markers.dimension_of_finding(root.body),
        head_sha=rng.head_sha,
    )


def _issue_reply_plan(
    pr: PullRequestRef, pull: Any, comment: IssueCommentEvent, own: str | None, *, asked: bool
) -> ReplyPlan:
    if not asked and command_jobs(comment.body):
        return ReplyPlan(skip="a /prflow command: the queue runs it")
    if not asked and not rules.mentions(comment.body, own):
        return ReplyPlan(skip="prflow is not mentioned")
    earlier = list(pull.as_issue().get_comments())[-MAX_THREAD_READ:]
    marker = markers.reply_marker(comment.comment_id)
    if any(
        _ours(c.user.login, c.user.type, own) and markers.carries(c.body, marker) for c in earlier
    ):
        return ReplyPlan(skip="answered already")
    info = fetch_pull_request(pr)
    rng = resolve_range(
        RepoSpec(location=info.clone_url, pr_number=pr.number), info.base_sha, info.head_sha
    )
    topic = ReplyTopic(
        path="(the pull request as a whole)",
        finding=(
            "(no finding: a question asked with /prflow ask on the pull request)"
            if asked
            else "(no finding: a comment on the pull request that mentions prflow)"
        ),
        code_at_head="(use the repository tools to read the change)",
        head_sha=rng.head_sha,
        thread=[
            ThreadComment(author=c.user.login, body=c.body or "")
            for c in earlier
            if c.id != comment.comment_id
        ][-10:],
        reply=ThreadComment(author=comment.author, body=comment.body),
    )
    return ReplyPlan(prompt=_prompt(topic), range=rng, head_sha=rng.head_sha)


def _prompt(topic: ReplyTopic) -> Any:
    return prepare_prompt(
        _db(),
        AgentPrompt(
            system=system_prompt(),
            tools=[*TOOL_SPECS, SUBMIT_REPLY],
            first_message=reply_message(topic),
        ),
    )


@activity.defn(name="conversation_post_reply")
@heartbeating
def post_reply(inp: PostReply) -> PostedReply:
    """Post the answer in the comment's thread, unless an earlier attempt already did."""
    comment = inp.comment
    marker = markers.reply_marker(comment.comment_id)
    body = reply_body(ReplyVerdict(verdict=inp.verdict, answer=inp.answer), marker)
    with _errors(inp.pr, "answering in"):
        client = github_client()
        own = own_login(client)
        pull = client.get_repo(f"{inp.pr.owner}/{inp.pr.repo}").get_pull(inp.pr.number)
        if isinstance(comment, ReviewCommentEvent):
            posted = reply_in_thread(inp.pr, comment.comment_id, body, marker=marker)
            return PostedReply(url=posted.url, already=not posted.created)
        issue = pull.as_issue()
        for earlier in issue.get_comments():
            if _ours(earlier.user.login, earlier.user.type, own) and markers.carries(
                earlier.body, marker
            ):
                return PostedReply(url=earlier.html_url, already=True)
        return PostedReply(url=issue.create_comment(body).html_url)


@activity.defn(name="conversation_record_verdict")
@heartbeating
def record_finding_verdict(inp: RecordVerdict) -> None:
    record_verdict(
        _db(),
        inp.repo,
        inp.pr_number,
        inp.fingerprint,
        inp.verdict,
        dimension=inp.dimension,
        head_sha=inp.head_sha,
    )


# ---------------------------------------------------------------- resolving


@activity.defn(name="conversation_sweep")
@heartbeating
def sweep_threads(inp: Sweep) -> SweepResult:
    """Answer and resolve each open prflow thread whose cited code the new head changed."""
    pr = inp.pr
    result = SweepResult()
    threads = fetch_review_threads(pr)
    with _errors(pr, "resolving the threads of"):
        client = github_client()
        own = own_login(client)
        pull = client.get_repo(f"{pr.owner}/{pr.repo}").get_pull(pr.number)
        rest = {c.id: c for c in pull.get_review_comments()}
        info = fetch_pull_request(pr)
        rng = resolve_range(
            RepoSpec(location=info.clone_url, pr_number=pr.number), info.base_sha, inp.head_sha
        )
        reader = GitRepoReader.for_range(rng)
        for thread in threads:
            if thread.is_resolved or not thread.comments:
                continue
            opener = thread.comments[0]
            root = rest.get(opener.id or -1)
            if root is None or not _ours(root.user.login, root.user.type, own):
                continue
            fingerprint = fingerprint_of_comment(root.body)
            if fingerprint is None:
                continue
            notes = [
                c.body
                for c in thread.comments[1:]
                if markers.carries(c.body, markers.addressed_prefix(root.id))
            ]
            at_this_head = markers.addressed_marker(root.id, rng.head_sha)
            if root.id in inp.left_alone or any(at_this_head not in body for body in notes):
                # prflow resolved it at an earlier head and a person reopened it: theirs now
                result.left_alone += 1
                continue
            if finding_holds(_anchor(reader, root), _text(reader, rng.head_sha, root.path)):
                result.still_open += 1
                continue
            marker = markers.addressed_marker(root.id, rng.head_sha)
            reply_in_thread(pr, root.id, addressed_body(rng.head_sha, marker), marker=marker)
            set_thread_resolved(pr, thread.id, resolved=True)
            record_verdict(
                _db(),
                f"{pr.owner}/{pr.repo}",
                pr.number,
                fingerprint,
                "fixed",
                dimension=markers.dimension_of_finding(root.body),
                head_sha=rng.head_sha,
            )
            result.resolved.append(fingerprint)
            activity.heartbeat()
    return result


CONVERSATION_ACTIVITIES = [open_conversation, prepare_reply, record_finding_verdict]
CONVERSATION_GITHUB_ACTIVITIES = [post_reply, sweep_threads]
