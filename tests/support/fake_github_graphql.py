"""The loopback GitHub's GraphQL endpoint: GitHub's own schema, answers from the fake's state.

Every query is parsed and validated against GitHub's published schema, so a
misspelt field fails here exactly as it would on github.com; it is then
executed with resolvers that read the fake's repositories, pull requests,
review threads and git history. Errors take GitHub's shape (``type`` such as
``NOT_FOUND`` beside the message) and connections page with opaque cursors
and GitHub's 100-record limit.
"""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphql import (
    GraphQLError,
    GraphQLResolveInfo,
    NoDeprecatedCustomRule,
    execute,
    parse,
    specified_rules,
    validate,
)

from tests.support.github_graphql_schema import github_graphql_schema

if TYPE_CHECKING:
    from tests.support.fake_github import FakeGitHub, FakeIssue

MAX_RECORDS = 100
Info = GraphQLResolveInfo[Any]
Json = Any


@dataclass
class FakeThreadComment:
    id: int
    author: str
    body: str
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class FakeReviewThread:
    id: str
    path: str
    line: int | None
    comments: list[FakeThreadComment]
    is_resolved: bool = False
    is_outdated: bool = False
    start_line: int | None = None
    resolved_by: str | None = None


class _NotFound(Exception):
    """A lookup GitHub answers with a ``NOT_FOUND`` error and a null field."""


class _Forbidden(Exception):
    """A mutation the caller may not make: a ``FORBIDDEN`` error and a null field."""


def answer_graphql(fake: FakeGitHub, body: Json, login: str) -> tuple[int, Json]:
    """Validate and execute one GraphQL request body as ``login``; GitHub answers 200 even
    with errors."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return 400, {"message": "A query attribute must be specified and must be a string."}
    schema = github_graphql_schema()
    try:
        document = parse(body["query"])
    except GraphQLError as exc:
        return 200, {"errors": [_error_json(exc)]}
    # Deprecated fields are refused: GitHub removes them on a published date (databaseId of
    # a review comment went on 2025-04-01; fullDatabaseId replaces it).
    problems = validate(schema, document, [*specified_rules, NoDeprecatedCustomRule])
    if problems:
        return 200, {
            "errors": [
                _error_json(e) | {"extensions": {"code": "undefinedField"}} for e in problems
            ]
        }
    result = execute(
        schema,
        document,
        root_value=_root(fake, login),
        variable_values=body.get("variables") or {},
    )
    if hasattr(result, "__await__"):
        raise TypeError("resolvers of the fake are synchronous")
    payload: Json = {"data": result.data}  # type: ignore[union-attr]
    if result.errors:  # type: ignore[union-attr]
        payload["errors"] = [_error_json(e) for e in result.errors]  # type: ignore[union-attr]
    return 200, payload


def _error_json(error: GraphQLError) -> Json:
    formatted: dict[str, Any] = dict(error.formatted)
    if isinstance(error.original_error, _NotFound):
        formatted["type"] = "NOT_FOUND"
    elif isinstance(error.original_error, _Forbidden):
        formatted["type"] = "FORBIDDEN"
    elif error.original_error is not None:
        formatted["type"] = "UNPROCESSABLE"
    return formatted


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _offset(after: str | None) -> int:
    if after is None:
        return 0
    try:
        return int(base64.b64decode(after).decode().rsplit(":", 1)[1]) + 1
    except (ValueError, IndexError) as exc:
        raise GraphQLError(f"`{after}` does not appear to be a valid cursor.") from exc


def _connection(items: Sequence[Any], node: Callable[[Any], Json]) -> Callable[..., Json]:
    """A resolver for a forward-paged connection over ``items``."""

    def resolve(_info: Info, first: int | None = None, after: str | None = None, **_: Any) -> Json:
        if first is None:
            raise GraphQLError("You must provide a `first` or `last` value to properly paginate.")
        if first > MAX_RECORDS:
            raise GraphQLError(
                f"Requesting {first} records on the connection exceeds the `first` limit of "
                f"{MAX_RECORDS} records."
            )
        start = _offset(after)
        chosen = list(items[start : start + first])
        nodes = [node(item) for item in chosen]
        end = start + len(chosen)
        return {
            "totalCount": len(items),
            "nodes": nodes,
            "edges": [{"cursor": _cursor(start + i), "node": n} for i, n in enumerate(nodes)],
            "pageInfo": {
                "hasNextPage": end < len(items),
                "hasPreviousPage": start > 0,
                "startCursor": _cursor(start) if chosen else None,
                "endCursor": _cursor(end - 1) if chosen else None,
            },
        }

    return resolve


def _root(fake: FakeGitHub, login: str) -> Json:
    def repository(_info: Info, owner: str, name: str, **_: Any) -> Json:
        repo = fake.repo_state(owner, name)
        if repo is None:
            raise _NotFound(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
        return {
            "__typename": "Repository",
            "nameWithOwner": repo.full_name,
            "pullRequest": lambda _i, number: _pull_request(fake, owner, name, number),
            "ref": lambda _i, qualifiedName: _ref(repo.git_dir, qualifiedName),
        }

    def set_resolved(resolved: bool) -> Callable[..., Json]:
        """``resolveReviewThread`` / ``unresolveReviewThread``: people with write access to
        the repository and the PR's author may (un)resolve a conversation."""

        def mutate(_info: Info, input: dict[str, Any]) -> Json:
            thread_id = input["threadId"]
            found = fake.thread_state(thread_id)
            if found is None:
                raise _NotFound(f"Could not resolve to a node with the global id of '{thread_id}'")
            issue, thread = found
            repo = issue.repo
            if login != issue.author and not fake.can_push(login, repo, repo.default_branch):
                user = fake.user_state(login)
                who = "integration" if user is not None and user.type == "Bot" else "user"
                raise _Forbidden(f"Resource not accessible by {who}")
            fake._set_resolved(thread_id, resolved, login)
            mutation_id = input.get("clientMutationId")
            return {"clientMutationId": mutation_id, "thread": _thread(fake, thread)}

        return mutate

    return {
        "repository": repository,
        "resolveReviewThread": set_resolved(True),
        "unresolveReviewThread": set_resolved(False),
    }


def _pull_request(fake: FakeGitHub, owner: str, name: str, number: int) -> Json:
    issue: FakeIssue | None = fake.issue_state(owner, name, number)
    if issue is None or issue.pull is None:
        raise _NotFound(f"Could not resolve to a PullRequest with the number of {number}.")
    threads = fake.review_threads(owner, name, number)
    return {
        "__typename": "PullRequest",
        "number": number,
        "reviewThreads": _connection(threads, lambda t: _thread(fake, t)),
    }


def _thread(fake: FakeGitHub, thread: FakeReviewThread) -> Json:
    return {
        "__typename": "PullRequestReviewThread",
        "id": thread.id,
        "isResolved": thread.is_resolved,
        "isOutdated": thread.is_outdated,
        "resolvedBy": _actor(fake, thread.resolved_by) if thread.is_resolved else None,
        "path": thread.path,
        "line": None if thread.is_outdated else thread.line,
        "startLine": thread.start_line,
        "diffSide": "RIGHT",
        "comments": _connection(thread.comments, lambda c: _comment(fake, c)),
    }


def _actor(fake: FakeGitHub, login: str | None) -> Json:
    """A ``User`` or ``Bot`` (GraphQL names a bot without REST's ``[bot]``)."""
    if login is None:
        return None
    user = fake.user_state(login)
    kind = user.type if user is not None and user.type in {"User", "Bot"} else "User"
    return {"__typename": kind, "login": login.removesuffix("[bot]") if kind == "Bot" else login}


def _comment(fake: FakeGitHub, comment: FakeThreadComment) -> Json:
    author = _actor(fake, comment.author)
    kind = author["__typename"]
    return {
        "__typename": "PullRequestReviewComment",
        "fullDatabaseId": str(comment.id),  # BigInt: a JSON string
        "url": f"{fake.web_url}/pull-review-comment/{comment.id}",
        "body": comment.body,
        "createdAt": comment.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "authorAssociation": "NONE" if kind == "Bot" else "MEMBER",
        "author": author,
    }


def _ref(git_dir: Path | None, qualified_name: str) -> Json:
    base = qualified_name.removeprefix("refs/heads/")
    exists = (
        git_dir is not None
        and subprocess.run(
            [
                "git",
                "--git-dir",
                str(git_dir),
                "show-ref",
                "--verify",
                "--quiet",
                f"refs/heads/{base}",
            ],
            check=False,
        ).returncode
        == 0
    )
    if not exists:
        return None

    def compare(_info: Info, headRef: str) -> Json:
        head = headRef.removeprefix("refs/heads/")
        counted = subprocess.run(
            [
                "git",
                "--git-dir",
                str(git_dir),
                "rev-list",
                "--left-right",
                "--count",
                f"refs/heads/{base}...refs/heads/{head}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if counted.returncode != 0:
            return None
        behind, ahead = (int(n) for n in counted.stdout.split())
        status = (
            "IDENTICAL"
            if not behind and not ahead
            else "DIVERGED"
            if behind and ahead
            else "BEHIND"
            if behind
            else "AHEAD"
        )
        return {"id": f"C_{base}_{head}", "aheadBy": ahead, "behindBy": behind, "status": status}

    return {"__typename": "Ref", "name": base, "compare": compare}
