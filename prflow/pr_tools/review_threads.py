"""Unresolved review threads: the GraphQL query, its parsing, and author filtering.

GitHub's REST API has no notion of a resolved thread, so threads come from
GraphQL's ``pullRequest.reviewThreads``. Bots are kept by default: a bot's
review (CodeRabbit, Copilot) is often exactly what a fix loop must address;
callers drop authors by name with ``exclude_authors``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from prflow.pr_tools.pagination import Paged, paginate

DEFAULT_PAGE_SIZE = 20
THREADS_PER_PAGE = 50
COMMENTS_PER_THREAD = 50

REVIEW_THREADS_QUERY = """
query PrflowReviewThreads(
  $owner: String!, $name: String!, $number: Int!, $after: String, $first: Int!, $replies: Int!
) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          startLine
          diffSide
          comments(first: $replies) {
            totalCount
            nodes {
              fullDatabaseId
              url
              body
              createdAt
              authorAssociation
              author { __typename login }
            }
          }
        }
      }
    }
  }
}
"""


def threads_variables(owner: str, name: str, number: int, after: str | None) -> dict[str, Any]:
    return {
        "owner": owner,
        "name": name,
        "number": number,
        "after": after,
        "first": THREADS_PER_PAGE,
        "replies": COMMENTS_PER_THREAD,
    }


class ThreadComment(BaseModel):
    id: int | None
    author: str = Field(description="Login; 'ghost' when the account was deleted")
    author_type: str = Field(description="GraphQL actor type: User, Bot, Mannequin, ...")
    author_association: str
    body: str
    url: str
    created_at: str


class ReviewThread(BaseModel):
    id: str
    path: str
    line: int | None = Field(description="Line in the current diff; None when outdated")
    start_line: int | None
    side: str | None
    is_resolved: bool
    is_outdated: bool
    comments: list[ThreadComment]
    more_comments: int = Field(0, description="Replies beyond those fetched")

    @property
    def author(self) -> str:
        return self.comments[0].author if self.comments else "ghost"

    @property
    def url(self) -> str:
        return self.comments[0].url if self.comments else ""


class ThreadsPage(BaseModel):
    """One GraphQL page of threads and where the next one starts."""

    threads: list[ReviewThread]
    total: int
    next_cursor: str | None


def parse_threads_page(data: Mapping[str, Any]) -> ThreadsPage | None:
    """The threads of a GraphQL answer; None when the repository or PR was not found."""
    repository = (data.get("data") or {}).get("repository")
    pull = repository.get("pullRequest") if repository else None
    if pull is None:
        return None
    connection = pull["reviewThreads"]
    info = connection["pageInfo"]
    return ThreadsPage(
        threads=[_thread(node) for node in connection["nodes"] if node],
        total=connection["totalCount"],
        next_cursor=info["endCursor"] if info["hasNextPage"] else None,
    )


def _thread(node: Mapping[str, Any]) -> ReviewThread:
    comments = [_comment(c) for c in node["comments"]["nodes"] if c]
    return ReviewThread(
        id=node["id"],
        path=node["path"],
        line=node.get("line"),
        start_line=node.get("startLine"),
        side=node.get("diffSide"),
        is_resolved=node["isResolved"],
        is_outdated=node["isOutdated"],
        comments=comments,
        more_comments=max(node["comments"]["totalCount"] - len(comments), 0),
    )


def _big_int(value: Any) -> int | None:
    """GraphQL ``BigInt`` (GitHub sends it as a string; 64-bit ids outgrow ``Int``)."""
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _comment(node: Mapping[str, Any]) -> ThreadComment:
    author = node.get("author") or {}
    return ThreadComment(
        id=_big_int(node.get("fullDatabaseId")),
        author=author.get("login") or "ghost",
        author_type=author.get("__typename") or "Ghost",
        author_association=node.get("authorAssociation") or "NONE",
        body=node.get("body") or "",
        url=node.get("url") or "",
        created_at=node.get("createdAt") or "",
    )


def login_key(login: str) -> str:
    """GraphQL names a bot ``coderabbitai``, REST ``coderabbitai[bot]``: compare them as one."""
    return login.strip().lower().removesuffix("[bot]")


def unresolved(
    threads: Iterable[ReviewThread], exclude_authors: Iterable[str] = ()
) -> list[ReviewThread]:
    """Open threads, minus those started by an excluded author and excluded authors' replies."""
    excluded = {login_key(name) for name in exclude_authors if name.strip()}
    kept: list[ReviewThread] = []
    for thread in threads:
        if thread.is_resolved or not thread.comments:
            continue
        if login_key(thread.author) in excluded:
            continue
        comments = [c for c in thread.comments if login_key(c.author) not in excluded]
        kept.append(thread.model_copy(update={"comments": comments}))
    return kept


class UnresolvedThreads(BaseModel):
    """What ``prflow pr comments`` and the MCP tool answer."""

    pr: str
    total_threads: int = Field(description="All review threads, resolved or not")
    unresolved_threads: int = Field(description="Unresolved threads after author exclusion")
    excluded_authors: list[str]
    threads: Paged[ReviewThread]


def unresolved_report(
    slug: str,
    threads: list[ReviewThread],
    *,
    exclude_authors: Iterable[str] = (),
    page: int = 1,
    page_size: int = DEFAULT_PAGE_SIZE,
) -> UnresolvedThreads:
    excluded = sorted({name.strip() for name in exclude_authors if name.strip()})
    open_threads = unresolved(threads, excluded)
    return UnresolvedThreads(
        pr=slug,
        total_threads=len(threads),
        unresolved_threads=len(open_threads),
        excluded_authors=excluded,
        threads=paginate(open_threads, page, page_size),
    )
