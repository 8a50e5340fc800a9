"""Turn what a user types or pastes into a pull request reference.

People copy a PR from wherever they are looking at it: the short form from a
chat message, the path from a browser tab, the full URL from an e-mail, or a
GitHub Enterprise URL. All of them name the same three things, so one parser
accepts every form and rejects anything else with a message that shows the
forms it understands.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator

from prflow.credentials import refuse_credentials
from prflow.errors import UserError

OWNER_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$"
REPO_PATTERN = r"^[A-Za-z0-9._-]{1,100}$"
SHA_PATTERN = r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$"


class PullRequestRef(BaseModel):
    """A PR by GitHub's own rules, checked wherever one is built (a webhook, a poll, the CLI),
    so no request path, workflow id or search attribute is ever made of anything else."""

    owner: str = Field(pattern=OWNER_PATTERN, description="Login: alphanumerics and hyphens")
    repo: str = Field(pattern=REPO_PATTERN, description="Alphanumerics, '.', '_', '-'")
    number: int = Field(ge=1, le=2**31 - 1)

    @field_validator("repo")
    @classmethod
    def _not_a_relative_path(cls, value: str) -> str:
        if value in {".", ".."}:
            raise ValueError("a repository name cannot be '.' or '..'")
        return value

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}#{self.number}"


ACCEPTED_FORMS = "owner/repo#123, owner/repo/pull/123 or https://github.com/owner/repo/pull/123"

# GitHub's own rules: logins are alphanumerics and single hyphens, repository
# names also allow '.', '_' and '-'. Being strict here catches pasted typos
# before a network round trip does.
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9._-]+"
_NUMBER = r"[0-9]{1,18}"
MAX_NUMBER = 2**31 - 1  # GitHub stores issue numbers as 32-bit integers

_SHORT = re.compile(rf"(?P<owner>{_OWNER})/(?P<repo>{_REPO})#(?P<number>{_NUMBER})")
_PATH = re.compile(
    rf"(?P<owner>{_OWNER})/(?P<repo>{_REPO})/pulls?/(?P<number>{_NUMBER})(?:/[^#?]*)?/?"
)


def parse_pr_identifier(text: str) -> PullRequestRef:
    """Parse ``owner/repo#N``, ``owner/repo/pull/N`` or a PR URL on any host.

    Raises :class:`UserError` naming the accepted forms when ``text`` is none
    of them, or when the number is not a positive integer, and refuses a URL
    carrying credentials before echoing anything back.
    """
    refuse_credentials(text)
    candidate = text.strip()
    if not candidate:
        raise UserError(f"the pull request id is empty; pass one, e.g. {ACCEPTED_FORMS}")
    shown = repr(candidate if len(candidate) <= 120 else candidate[:117] + "...")
    match = _SHORT.fullmatch(candidate) or _PATH.fullmatch(_path_part(candidate))
    repo = match["repo"].removesuffix(".git") if match else ""
    if match is None or repo in {"", ".", ".."}:
        raise UserError(f"Not a pull request identifier: {shown}. Use {ACCEPTED_FORMS}.")
    number = int(match["number"])
    if not 1 <= number <= MAX_NUMBER:
        raise UserError(
            f"Pull request number out of range in {shown}: it must be between 1 and "
            f"{MAX_NUMBER}. Use {ACCEPTED_FORMS}."
        )
    return PullRequestRef(owner=match["owner"], repo=repo, number=number)


def _path_part(candidate: str) -> str:
    """The ``owner/repo/pull/N...`` part of a URL (with or without its scheme)."""
    if "://" in candidate:
        parts = urlsplit(candidate)
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            return ""
        return parts.path.lstrip("/")
    path = re.split(r"[?#]", candidate, maxsplit=1)[0]
    first, _, rest = path.partition("/")
    # A pasted "github.com/owner/repo/pull/1": owners never contain a dot, hosts do.
    return rest if "." in first else path
