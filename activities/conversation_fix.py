"""Activities of ``/prflow fix`` and of the conversation's command notes.

``conversation_prepare_fix`` reads the thread, the PR's head and who may push where, and
builds the refactor's directive; ``conversation_deliver_fix`` turns the validated change
(the refactor's combined patch, applied to the PR's head in a private index) into ONE
commit on the PR's branch through GitHub's Git Data API, or a stacked draft PR;
``conversation_post_note`` posts prflow's one answer to a command. Every write is found
again by its mark on a retry (the fix's commit by a trailer line, notes by a hidden
marker), so a worker killed mid-write never pushes or answers twice.
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.conversation import _db, _errors, _ours
from activities.github.client import github_client
from activities.github.comments import own_login
from activities.github.draft_pr import open_draft_pull
from activities.github.thread_actions import reply_in_thread
from activities.heartbeats import heartbeating
from activities.workspace_git import git, repo_at
from prflow.agent.planning import phase_plans
from prflow.config import cached_settings
from prflow.conversation import markers, rules
from prflow.conversation.commands import FixTopic, fix_directive
from prflow.conversation.events import IssueCommentEvent, ReviewCommentEvent
from prflow.conversation.models import (
    DeliverFix,
    FixDelivered,
    FixPlan,
    PostedReply,
    PostNote,
    ReadFix,
)
from prflow.refactor.kind import REFACTOR
from prflow.refactor.run_models import MODEL_PHASES
from prflow.review.render.text import inert
from prflow.store.blobs import get_text, put_json, put_text
from prflow.workspace.models import DraftPullRequestInput, WorkspaceRef, WorkspaceState

PUSH_ROLES = frozenset({"admin", "write"})
"""Legacy permissions (``GET …/collaborators/{u}/permission``) that may push: maintain is
reported as write."""

# ---------------------------------------------------------------- prepare


@activity.defn(name="conversation_prepare_fix")
@heartbeating
def prepare_fix(inp: ReadFix) -> FixPlan:
    """Whether a ``/prflow fix`` runs and, if so, the refactor's inputs and the write path."""
    comment = inp.comment
    with _errors(inp.pr, "reading the thread of a /prflow fix on"):
        client = github_client()
        own = own_login(client)
        if _ours(comment.author, comment.author_type, own) or rules.is_bot(
            comment.author, comment.author_type
        ):
            return FixPlan(skip="a bot's or prflow's own comment")
        repo = client.get_repo(f"{inp.pr.owner}/{inp.pr.repo}")
        pull = repo.get_pull(inp.pr.number)
        marker = markers.fix_marker(comment.comment_id)
        if isinstance(comment, IssueCommentEvent):
            if any(
                _ours(c.user.login, c.user.type, own) and markers.carries(c.body, marker)
                for c in pull.as_issue().get_comments()
            ):
                return FixPlan(skip="answered already")
            return FixPlan(
                refuse="it fixes what a review thread is about: reply `/prflow fix` in the "
                "thread of the finding (or review comment) to fix"
            )
        root_id = comment.in_reply_to_id or comment.comment_id
        thread = sorted(
            (c for c in pull.get_review_comments() if root_id in (c.id, c.in_reply_to_id)),
            key=lambda c: c.id,
        )
        if any(
            _ours(c.user.login, c.user.type, own) and markers.carries(c.body, marker)
            for c in thread
        ):
            return FixPlan(skip="answered already")
        root = next((c for c in thread if c.id == root_id), None)
        if root is None:
            return FixPlan(refuse="the thread's first comment is gone", root_comment_id=root_id)
        if not inp.with_model:
            return FixPlan(
                refuse="no model is configured for prflow, so it cannot write a fix",
                root_comment_id=root_id,
            )
        base_name = pull.base.repo.full_name
        head_repo = pull.head.repo
        head_name = head_repo.full_name if head_repo is not None else ""
        fork = head_name != base_name
        settings = cached_settings()
        if not head_name:
            return FixPlan(
                refuse="the repository holding the pull request's branch is gone",
                root_comment_id=root_id,
            )
        if fork and not settings.conversation.fix_on_forks:
            return FixPlan(
                refuse=f"this pull request comes from a fork ({head_name}); prflow "
                "never pushes to a fork, and this organisation's config does not allow fixes "
                "on forks (`[conversation] fix_on_forks = true` allows a stacked draft PR)",
                root_comment_id=root_id,
            )
        push, why = False, "prflow never pushes to a fork's branch"
        if not fork:
            role = repo.get_collaborator_permission(comment.author)
            push = role in PUSH_ROLES
            why = f"{comment.author} may not push to `{pull.head.ref}`"
        topic = FixTopic(
            path=root.path,
            line=root.line or root.original_line,
            finding=markers.finding_text(root.body),
            finding_author=root.user.login,
            thread=[
                (c.user.login, c.body or "")
                for c in thread
                if c.id not in (root_id, comment.comment_id)
                and not _ours(c.user.login, c.user.type, own)
            ],
            note=inp.note,
        )
        plans = {
            phase: plan.model_copy(update={"task_queue": inp.llm_queue})
            for phase, plan in phase_plans(settings, REFACTOR, MODEL_PHASES).items()
        }
        return FixPlan(
            directive=fix_directive(topic),
            clone_url=pull.base.repo.clone_url,
            head_sha=pull.head.sha,
            head_branch=pull.head.ref,
            head_repo=head_name,
            push=push,
            why_draft="" if push else why,
            test_command=settings.refactor.test_command,
            plans=plans,
            root_comment_id=root_id,
        )


# ---------------------------------------------------------------- deliver


Change = dict[str, tuple[str, bytes] | None]
"""Path -> (git mode, content), or None when the fix deletes the file."""


def changed_files(clone_url: str, head_sha: str, patch: str) -> Change:
    """The files the patch changes, applied to ``head_sha`` in a private index of the mirror
    (no checkout: the repository is never touched)."""
    local = repo_at(clone_url, head_sha)
    out: Change = {}
    with tempfile.TemporaryDirectory(prefix="prflow-fix-") as scratch:
        index = Path(scratch) / "index"
        git(["read-tree", head_sha], local.git_dir, index=index)
        git(
            ["apply", "--cached", "--whitespace=nowarn", "-"],
            local.git_dir,
            index=index,
            stdin=patch.encode(),
        )
        listed = git(
            ["diff-index", "--cached", "--no-renames", "--name-status", "-z", head_sha],
            local.git_dir,
            index=index,
        ).stdout.split(b"\0")
        for status, raw in zip(listed[0::2], listed[1::2], strict=False):
            path = raw.decode("utf-8", errors="surrogateescape")
            if status == b"D":
                out[path] = None
                continue
            staged = git(["ls-files", "-s", "--", path], local.git_dir, index=index).stdout
            mode, oid = staged.decode().split(" ")[:2]
            data = git(["cat-file", "blob", oid], local.git_dir).stdout
            out[path] = (mode, data)
    return out


@activity.defn(name="conversation_deliver_fix")
@heartbeating
def deliver_fix(inp: DeliverFix) -> FixDelivered:
    """One commit on the PR's branch, or a stacked draft PR; a retry finds what it made."""
    change = changed_files(inp.plan.clone_url, inp.plan.head_sha, get_text(_db(), inp.patch_key))
    if inp.plan.push:
        return _push(inp, change)
    return _draft(inp, change)


def _message(inp: DeliverFix) -> str:
    return f"{inp.title}\n\nAsked with /prflow fix.\n\n{markers.fix_trailer(inp.comment_id)}\n"


def _push(inp: DeliverFix, change: Change) -> FixDelivered:
    from github import GithubException, InputGitTreeElement

    plan = inp.plan
    trailer = markers.fix_trailer(inp.comment_id)
    with _errors(inp.pr, f"pushing a fix to {plan.head_branch} of"):
        repo = github_client().get_repo(plan.head_repo)
        ref = repo.get_git_ref(f"heads/{plan.head_branch}")
        tip = ref.object.sha
        if tip != plan.head_sha:
            if trailer in (repo.get_git_commit(tip).message or ""):  # an earlier attempt pushed
                return FixDelivered(url=_commit_url(repo, tip), sha=tip, pushed=True)
            return FixDelivered(
                url="",
                refused=f"`{plan.head_branch}` moved to {tip[:12]} while the fix ran from "
                f"{plan.head_sha[:12]}; ask again with `/prflow fix`",
            )
        head = repo.get_git_commit(plan.head_sha)
        elements = []
        for path, entry in sorted(change.items()):
            if entry is None:
                elements.append(InputGitTreeElement(path, "100644", "blob", sha=None))
                continue
            mode, data = entry
            blob = repo.create_git_blob(base64.b64encode(data).decode(), "base64")
            elements.append(InputGitTreeElement(path, mode, "blob", sha=blob.sha))
        tree = repo.create_git_tree(elements, head.tree)
        commit = repo.create_git_commit(_message(inp), tree, [head])
        try:
            ref.edit(commit.sha, force=False)
        except GithubException as exc:
            if exc.status not in (403, 404, 422):
                raise
            said = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
            return FixDelivered(
                url="",
                refused=f"GitHub refused the push to `{plan.head_branch}` ({exc.status}: "
                f"{str(said)[:200]})",
            )
    return FixDelivered(url=_commit_url(repo, commit.sha), sha=commit.sha, pushed=True)


def _commit_url(repo: Any, sha: str) -> str:
    return f"{repo.html_url}/commit/{sha}"


def _draft(inp: DeliverFix, change: Change) -> FixDelivered:
    plan = inp.plan
    db = _db()
    files: dict[str, str | None] = {
        path: None if entry is None else put_text(db, entry[1].decode("utf-8", errors="replace"))
        for path, entry in change.items()
    }
    workspace = WorkspaceRef(
        repo=plan.clone_url,
        base_sha=plan.head_sha,
        state_key=put_json(db, WorkspaceState(files=files).model_dump()),
        run_id=f"fix-{inp.pr.number}-{inp.comment_id}",
    )
    try:
        pull = open_draft_pull(
            DraftPullRequestInput(
                workspace=workspace,
                repository=plan.head_repo,
                branch=f"prflow/fix-{inp.pr.number}-{inp.comment_id}",
                base_branch=plan.head_branch,
                title=inp.title,
                body_key=inp.body_key,
                commit_message=_message(inp),
            )
        )
    except ApplicationError as exc:
        if not exc.non_retryable:
            raise
        return FixDelivered(url="", refused=f"GitHub refused the draft pull request: {exc.message}")
    return FixDelivered(url=pull.html_url, sha=pull.commit_sha)


# ---------------------------------------------------------------- notes


@activity.defn(name="conversation_post_note")
@heartbeating
def post_note(inp: PostNote) -> PostedReply:
    """prflow's one answer to a command: in the comment's review thread, else on the PR."""
    body = f"{inert(inp.text)}\n{inp.marker}"
    comment = inp.comment
    with _errors(inp.pr, "answering a /prflow command on"):
        if isinstance(comment, ReviewCommentEvent):
            posted = reply_in_thread(
                inp.pr, inp.root_comment_id or comment.comment_id, body, marker=inp.marker
            )
            return PostedReply(url=posted.url, already=not posted.created)
        client = github_client()
        own = own_login(client)
        issue = client.get_repo(f"{inp.pr.owner}/{inp.pr.repo}").get_issue(inp.pr.number)
        for earlier in issue.get_comments():
            if _ours(earlier.user.login, earlier.user.type, own) and markers.carries(
                earlier.body, inp.marker
            ):
                return PostedReply(url=earlier.html_url, already=True)
        return PostedReply(url=issue.create_comment(body).html_url)


FIX_ACTIVITIES = [prepare_fix]
FIX_GITHUB_ACTIVITIES = [deliver_fix, post_note]
