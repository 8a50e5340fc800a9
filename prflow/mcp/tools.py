"""The MCP tool catalogue: names, descriptions, JSON schemas, and what each call runs.

Every failure a caller can fix comes back as one line (the same text the CLI
prints), so an agent can correct its call; anything else is a server error.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from prflow.errors import UserError, user_error_in
from prflow.mcp.github_access import read_github, wait_for_checks
from prflow.mcp.tool_args import (
    PrArgs,
    PrChecksArgs,
    PrCommentsArgs,
    PrReplyArgs,
    PrResolveArgs,
    PrStackArgs,
    PrThreadsArgs,
    RepoTarget,
)
from prflow.pr_identifier import parse_pr_identifier
from prflow.tools.registry import TOOL_SPECS, describe_validation_error, input_schema


class Answer(BaseModel):
    """A tool's answer: the text a model reads and the same data, structured."""

    text: str
    data: dict[str, Any]

    @classmethod
    def of(cls, result: BaseModel) -> Answer:
        data = result.model_dump(mode="json")
        return cls(text=json.dumps(data, indent=1), data=data)


Handler = Callable[[dict[str, Any]], Awaitable[Answer]]


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    run: Handler


def _parse(model: type[BaseModel], arguments: dict[str, Any]) -> Any:
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        refused = user_error_in(exc)  # a validator's own words (credentials, a NUL byte)
        if refused is not None:
            raise refused from None
        raise UserError(f"invalid arguments: {describe_validation_error(exc)}") from None


# --- the six repo tools ---------------------------------------------------------------------

_TARGET_FIELDS = tuple(RepoTarget.model_fields)


def _repo_tool_schema(tool_schema: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(tool_schema)
    target = input_schema(RepoTarget)["properties"]
    merged["properties"] = {**target, **merged.get("properties", {})}
    return merged


def _repo_tool(name: str) -> Handler:
    async def run(arguments: dict[str, Any]) -> Answer:
        from prflow.mcp.repo_access import run_repo_tool

        tool_arguments = {k: v for k, v in arguments.items() if k not in _TARGET_FIELDS}
        target = _parse(RepoTarget, {k: v for k, v in arguments.items() if k in _TARGET_FIELDS})
        result = await run_repo_tool(target, name, tool_arguments)
        return Answer(text=result.text, data=result.data)

    return run


# --- the PR tools ---------------------------------------------------------------------------


async def _pr_comments(arguments: dict[str, Any]) -> Answer:
    args: PrCommentsArgs = _parse(PrCommentsArgs, arguments)
    ref = parse_pr_identifier(args.pr)

    def read() -> BaseModel:
        from activities.github.pr_tools import unresolved_comments

        return unresolved_comments(
            ref, exclude_authors=args.exclude_authors, page=args.page, page_size=args.page_size
        )

    return Answer.of(await read_github(read))


async def _pr_checks(arguments: dict[str, Any]) -> Answer:
    from prflow.pr_tools.run_models import PrChecksRequest

    args: PrChecksArgs = _parse(PrChecksArgs, arguments)
    ref = parse_pr_identifier(args.pr)
    if args.wait:
        request = PrChecksRequest(
            pr=ref,
            bail_on_first=args.bail_on_first,
            max_wait_seconds=args.max_wait_seconds,
            page=args.page,
            page_size=args.page_size,
        )
        return Answer.of(await wait_for_checks(request))

    def read() -> BaseModel:
        from activities.github.pr_tools import failing_checks

        return failing_checks(ref, page=args.page, page_size=args.page_size)

    return Answer.of(await read_github(read))


async def _pr_stack(arguments: dict[str, Any]) -> Answer:
    args: PrStackArgs = _parse(PrStackArgs, arguments)
    ref = parse_pr_identifier(args.pr)

    def read() -> BaseModel:
        from activities.github.pr_tools import stack_plan

        return stack_plan(ref)

    return Answer.of(await read_github(read))


async def _pr_threads(arguments: dict[str, Any]) -> Answer:
    args: PrThreadsArgs = _parse(PrThreadsArgs, arguments)
    ref = parse_pr_identifier(args.pr)

    def read() -> BaseModel:
        from activities.github.resolution import list_threads

        return list_threads(ref, resolved=args.include_resolved)

    return Answer.of(await read_github(read))


async def _pr_reply(arguments: dict[str, Any]) -> Answer:
    args: PrReplyArgs = _parse(PrReplyArgs, arguments)
    ref = parse_pr_identifier(args.pr)

    def write() -> BaseModel:
        from activities.github.resolution import reply

        return reply(ref, args.target, args.body)

    return Answer.of(await read_github(write))


async def _pr_resolve(arguments: dict[str, Any]) -> Answer:
    args: PrResolveArgs = _parse(PrResolveArgs, arguments)
    ref = parse_pr_identifier(args.pr)

    def write() -> BaseModel:
        from activities.github.resolution import resolve_threads

        return resolve_threads(
            ref, args.thread_ids, resolve=not args.unresolve, outdated=args.outdated
        )

    return Answer.of(await read_github(write))


def _pr_reader(name: str) -> Handler:
    """A tool taking the PR alone and answering one function of :mod:`resolution`."""

    async def run(arguments: dict[str, Any]) -> Answer:
        args: PrArgs = _parse(PrArgs, arguments)
        ref = parse_pr_identifier(args.pr)

        def read() -> BaseModel:
            from activities.github import resolution

            result: BaseModel = getattr(resolution, name)(ref)
            return result

        return Answer.of(await read_github(read))

    return run


PR_TOOLS: tuple[McpTool, ...] = (
    McpTool(
        "pr_comments",
        "Unresolved review threads of a pull request (GitHub GraphQL), bots included unless "
        "excluded, paged with explicit has_next and total_pages. Raw comments: you judge "
        "what matters.",
        input_schema(PrCommentsArgs),
        _pr_comments,
    ),
    McpTool(
        "pr_checks",
        "CI of a pull request: state (passed, failed, pending or no_ci), failing checks, the "
        "tests that failed in their job logs (pytest, jest, vitest, go test) with file:line, "
        "message and a command that re-runs each alone. wait=true waits for CI to finish.",
        input_schema(PrChecksArgs),
        _pr_checks,
    ),
    McpTool(
        "pr_stack",
        "Stacked pull requests: the chain around this PR (base branch = another PR's head), "
        "what to rebase onto what and in which order with the git commands, and whether each "
        "PR is ready to merge and why not.",
        input_schema(PrStackArgs),
        _pr_stack,
    ),
    McpTool(
        "pr_threads",
        "Review threads of a pull request with their ids (for pr_reply and pr_resolve), "
        "state (resolved, outdated), author, whether prflow opened them, and the id of the "
        "comment a reply goes to. Unresolved only unless include_resolved.",
        input_schema(PrThreadsArgs),
        _pr_threads,
    ),
    McpTool(
        "pr_reply",
        "Post a reply in a review thread, named by its thread id or a comment id. Writes to "
        "GitHub.",
        input_schema(PrReplyArgs),
        _pr_reply,
    ),
    McpTool(
        "pr_resolve",
        "Resolve review threads by id, or every unresolved prflow thread a push made "
        "outdated (outdated=true); unresolve=true reopens them. Writes to GitHub.",
        input_schema(PrResolveArgs),
        _pr_resolve,
    ),
    McpTool(
        "pr_conflicts",
        "Whether a pull request merges cleanly: GitHub's mergeable state plus a trial merge "
        "of the base branch's tip and the head, with the conflicting files, each conflict's "
        "kind and hunks (both sides' lines), and the commands to resolve them locally.",
        input_schema(PrArgs),
        _pr_reader("merge_conflicts"),
    ),
    McpTool(
        "pr_rebase",
        "After a stacked PR's base PR was (squash-)merged: the PR's own commits in order "
        "(those already on the new base marked) and the git commands that replay them onto "
        "the branch the base went into and retarget the PR.",
        input_schema(PrArgs),
        _pr_reader("rebase_after_merge"),
    ),
    McpTool(
        "pr_permissions",
        "What the GitHub token may do on a pull request: reply, resolve threads, read "
        "conflicts, push a rebase or a fix to the head branch (forks included), and why.",
        input_schema(PrArgs),
        _pr_reader("token_permissions"),
    ),
)

REPO_TOOLS: tuple[McpTool, ...] = tuple(
    McpTool(
        spec.name,
        f"{spec.description} Reads a local repository (repo, default '.') at head compared "
        "with base, like a PR.",
        _repo_tool_schema(spec.input_schema),
        _repo_tool(spec.name),
    )
    for spec in TOOL_SPECS
)

TOOLS: tuple[McpTool, ...] = REPO_TOOLS + PR_TOOLS
BY_NAME = {tool.name: tool for tool in TOOLS}
