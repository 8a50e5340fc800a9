"""What the token may do on a PR, tool by tool, from the repository permissions GitHub
reports for it.

GitHub's rules: any reader may comment (reply in a thread) on a PR that is not locked;
resolving a conversation needs write access or being the PR's author; a push to the PR's
branch needs write access to the repository holding it (a fork: its owner's, unless the
fork lets the base repository's writers push, ``maintainer_can_modify``).
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class RepoAccess(BaseModel):
    """``permissions`` of a repository as GitHub answers it for the caller (None: not said,
    as for some App tokens)."""

    admin: bool | None = None
    maintain: bool | None = None
    push: bool | None = None
    triage: bool | None = None
    pull: bool | None = None


class ToolPermission(BaseModel):
    tool: str
    needs: str
    allowed: bool | None = Field(description="None when GitHub did not say")
    why: str


class PermissionReport(BaseModel):
    pr: str
    login: str | None = Field(description="Who the token is; None for an App installation")
    repository: str
    access: RepoAccess
    head_repository: str | None = Field(description="The fork holding the head, if any")
    head_access: RepoAccess | None
    maintainer_can_modify: bool
    tools: list[ToolPermission]


def _known(*values: bool | None) -> bool | None:
    """True when any is True, None when none is known, else False."""
    if any(v is True for v in values):
        return True
    return None if all(v is None for v in values) else False


def permission_report(
    *,
    pr: str,
    login: str | None,
    author: str | None,
    repository: str,
    access: RepoAccess,
    head_repository: str | None,
    head_access: RepoAccess | None,
    maintainer_can_modify: bool,
) -> PermissionReport:
    read = _known(access.pull, access.push)
    write = access.push
    is_author = login is not None and author is not None and login == author
    if head_repository is None:
        push_head = write
        push_why = "write access to the repository" if write else "no write access"
    else:
        own = head_access.push if head_access is not None else False
        through_base = bool(maintainer_can_modify and write)
        push_head = _known(own, through_base)
        push_why = (
            f"write access to the fork {head_repository}"
            if own
            else "the fork allows maintainers' pushes and the token can write the base"
            if through_base
            else f"the head is in the fork {head_repository}, which the token cannot push to"
        )
    resolve = True if is_author else write
    tools = [
        ToolPermission(
            tool="reply",
            needs="pull requests: write (read access to the repository)",
            allowed=read,
            why="anyone who can read the repository may comment" if read else "no read access",
        ),
        ToolPermission(
            tool="resolve",
            needs="pull requests: write and write access, or being the PR's author",
            allowed=resolve,
            why="the PR's author" if is_author else push_why if write else "no write access",
        ),
        ToolPermission(
            tool="conflicts",
            needs="pull requests and contents: read",
            allowed=read,
            why="reads the PR and clones the repository",
        ),
        ToolPermission(
            tool="rebase",
            needs="contents: read to plan; contents: write on the head's repository to push",
            allowed=push_head,
            why=push_why,
        ),
        ToolPermission(
            tool="push",
            needs="contents: write on the repository holding the head branch",
            allowed=push_head,
            why=push_why,
        ),
    ]
    return PermissionReport(
        pr=pr,
        login=login,
        repository=repository,
        access=access,
        head_repository=head_repository,
        head_access=head_access,
        maintainer_can_modify=maintainer_can_modify,
        tools=tools,
    )
