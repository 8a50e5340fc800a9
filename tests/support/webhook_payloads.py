"""GitHub webhook deliveries built from the loopback GitHub's state, as GitHub would send them.

Bodies reuse the fake's REST shapes (a webhook's ``pull_request`` and
``repository`` objects are the REST ones) plus the webhook-only members;
:func:`schema_problems` checks a body against the models ``githubkit-schemas``
generates from GitHub's published webhook schemas, so a test cannot pass on a
payload GitHub would never send.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from prflow.queue.signature import SIGNATURE_HEADER, sign
from tests.support.fake_github import FakeGitHub
from tests.support.fake_github_reviews import review_comment_json

PULL_REQUEST_MODELS = {
    "opened": "WebhookPullRequestOpened",
    "synchronize": "WebhookPullRequestSynchronize",
    "reopened": "WebhookPullRequestReopened",
    "ready_for_review": "WebhookPullRequestReadyForReview",
    "closed": "WebhookPullRequestClosed",
    "labeled": "WebhookPullRequestLabeled",
}
ISSUE_COMMENT_MODEL = "WebhookIssueCommentCreated"
REVIEW_COMMENT_MODELS = {"created": "WebhookPullRequestReviewCommentCreated"}
REVIEW_THREAD_MODELS = {
    "resolved": "WebhookPullRequestReviewThreadResolved",
    "unresolved": "WebhookPullRequestReviewThreadUnresolved",
}


@dataclass(frozen=True)
class Delivery:
    """One webhook delivery: its headers' event and id, and the JSON body."""

    event: str
    delivery_id: str
    payload: dict[str, Any]

    @property
    def body(self) -> bytes:
        return json.dumps(self.payload).encode()

    def headers(self, secret: str | None) -> dict[str, str]:
        headers = {
            "X-GitHub-Event": self.event,
            "X-GitHub-Delivery": self.delivery_id,
            "X-GitHub-Hook-ID": "4242",
            "User-Agent": "GitHub-Hookshot/prflow-test",
            "Content-Type": "application/json",
        }
        if secret is not None:
            headers[SIGNATURE_HEADER] = sign(secret, self.body)
        return headers


def pull_request_delivery(
    fake: FakeGitHub, owner: str, repo: str, number: int, action: str, *, before: str | None = None
) -> Delivery:
    """A ``pull_request`` delivery for the PR's current state."""
    issue = fake.issue_state(owner, repo, number)
    assert issue is not None and issue.pull is not None, f"no PR {owner}/{repo}#{number}"
    payload: dict[str, Any] = {
        "action": action,
        "number": number,
        "pull_request": fake._pull_json(issue),
        "repository": fake._repo_json(issue.repo),
        "sender": fake._user_json(fake.add_user(issue.author)),
    }
    owner_user = fake.user_state(owner)
    if owner_user is not None and owner_user.type == "Organization":
        payload["organization"] = _organization_json(fake, owner)
    if action == "synchronize":
        payload["before"] = before or "0" * 40
        payload["after"] = issue.pull.head_sha
    if action == "labeled":
        payload["label"] = {
            "id": 1,
            "node_id": "LA_kwDO00000001",
            "url": f"{fake.api_url}/repos/{owner}/{repo}/labels/bug",
            "name": "bug",
            "color": "d73a4a",
            "default": True,
            "description": None,
            "archived_at": None,
            "archived_by": None,
        }
    return Delivery("pull_request", str(uuid.uuid4()), payload)


def comment_delivery(
    fake: FakeGitHub,
    owner: str,
    repo: str,
    number: int,
    body: str,
    *,
    author: str = "maintainer",
    association: str = "MEMBER",
) -> Delivery:
    """An ``issue_comment.created`` delivery for a new comment on the PR (seeded in the fake)."""
    issue = fake.issue_state(owner, repo, number)
    assert issue is not None
    comment_id = fake.add_comment(owner, repo, number, body, author)
    comment = fake._comment_json(fake._comments[comment_id])
    comment["author_association"] = association
    issue_json = fake._issue_json(issue)
    payload: dict[str, Any] = {
        "action": "created",
        "issue": issue_json,
        "comment": comment,
        "repository": fake._repo_json(issue.repo),
        "sender": fake._user_json(fake.add_user(author)),
    }
    return Delivery("issue_comment", str(uuid.uuid4()), payload)


def review_comment_delivery(
    fake: FakeGitHub,
    owner: str,
    repo: str,
    number: int,
    comment_id: int,
    *,
    association: str | None = None,
) -> Delivery:
    """A ``pull_request_review_comment.created`` delivery for a review comment the fake holds
    (a reply made with the replies endpoint or seeded with ``add_review_thread``)."""
    issue = fake.issue_state(owner, repo, number)
    assert issue is not None and issue.pull is not None, f"no PR {owner}/{repo}#{number}"
    comment = next(c for c in fake.review_comments(owner, repo, number) if c.id == comment_id)
    payload = _pull_event(fake, issue, "created", sender=comment.author) | {
        "comment": _webhook_review_comment(fake, issue, comment, association),
    }
    return Delivery("pull_request_review_comment", str(uuid.uuid4()), payload)


def review_thread_delivery(
    fake: FakeGitHub, thread_id: str, action: str, *, sender: str = "maintainer"
) -> Delivery:
    """A ``pull_request_review_thread`` delivery (``resolved`` or ``unresolved``) for a thread
    the fake holds; ``sender`` is who resolved it."""
    found = fake.thread_state(thread_id)
    assert found is not None, f"no review thread {thread_id}"
    issue, thread = found
    owner, repo = issue.repo.owner, issue.repo.name
    rest = {c.id: c for c in fake.review_comments(owner, repo, issue.number)}
    comments = [
        _webhook_review_comment(fake, issue, rest[c.id], None)
        for c in thread.comments
        if c.id in rest
    ]
    payload = _pull_event(fake, issue, action, sender=sender) | {
        "thread": {"node_id": thread.id, "comments": comments},
    }
    return Delivery("pull_request_review_thread", str(uuid.uuid4()), payload)


def _pull_event(fake: FakeGitHub, issue: Any, action: str, *, sender: str) -> dict[str, Any]:
    """The members every pull request event carries: action, PR, repository, sender."""
    owner = issue.repo.owner
    payload: dict[str, Any] = {
        "action": action,
        "pull_request": fake._pull_simple_json(issue),
        "repository": fake._repo_json(issue.repo),
        "sender": fake._user_json(fake.add_user(sender)),
    }
    owner_user = fake.user_state(owner)
    if owner_user is not None and owner_user.type == "Organization":
        payload["organization"] = _organization_json(fake, owner)
    return payload


def _webhook_review_comment(
    fake: FakeGitHub, issue: Any, comment: Any, association: str | None
) -> dict[str, Any]:
    api, web = fake._pull_api(issue)
    user = fake.user_state(comment.author)
    assert user is not None
    body: dict[str, Any] = review_comment_json(comment, fake._user_json(user), api, web)
    body["reactions"] = fake._reactions_json(body["url"])
    body["author_association"] = association or fake.association(
        issue.repo.owner, issue.repo.name, comment.author
    )
    return body


def _organization_json(fake: FakeGitHub, org: str) -> dict[str, Any]:
    user = fake.add_user(org, type="Organization")
    api = f"{fake.api_url}/orgs/{org}"
    return {
        "login": org,
        "id": user.id,
        "node_id": f"O_kgDO{user.id:08d}",
        "url": api,
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events",
        "hooks_url": f"{api}/hooks",
        "issues_url": f"{api}/issues",
        "members_url": f"{api}/members{{/member}}",
        "public_members_url": f"{api}/public_members{{/member}}",
        "avatar_url": f"{fake.web_url}/avatars/u/{user.id}?v=4",
        "description": None,
    }


def schema_problems(delivery: Delivery) -> list[str]:
    """Why GitHub's published schema would reject this body (empty when it matches)."""
    from githubkit_schemas.v2022_11_28 import models

    if delivery.event == "pull_request":
        name = PULL_REQUEST_MODELS[delivery.payload["action"]]
    elif delivery.event == "issue_comment":
        name = ISSUE_COMMENT_MODEL
    elif delivery.event == "pull_request_review_comment":
        name = REVIEW_COMMENT_MODELS[delivery.payload["action"]]
    elif delivery.event == "pull_request_review_thread":
        name = REVIEW_THREAD_MODELS[delivery.payload["action"]]
    else:
        return [f"no schema chosen for {delivery.event}"]
    model: type[BaseModel] = getattr(models, name)
    try:
        model.model_validate_json(delivery.body, strict=True)
    except ValidationError as err:
        return [f"{name}: {problem['loc']}: {problem['msg']}" for problem in err.errors()[:10]]
    return []
