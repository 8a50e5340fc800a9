"""``search_code``: regex search over the text files of one side of the PR."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.repo_models import ResolvedRange
from prflow.tools.output import Page, ToolOutput, paginate
from prflow.tools.paths import clean_glob
from prflow.tools.reader import MAX_GREP_HITS, GrepHit, RepoReader, ToolError
from prflow.tools.refs import SideName, side_sha

NAME = "search_code"
DESCRIPTION = (
    "Regular-expression search (POSIX extended, as `git grep -E`: [[:space:]] not \\s, no "
    "lookarounds) over text files at head, or base with ref='base'. `glob` narrows the "
    "files ('*.py', 'src/*.ts'). Gives file, line and text; no match is an empty list. "
    "Paged: with `has_next`, call again at `next_offset`."
)
MAX_MATCH_CHARS = 300


class SearchCodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Extended regular expression, e.g. 'def (load|save)_config'")
    glob: str | None = None
    ref: SideName = "head"
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=50, ge=1, le=200)


class SearchCodeResult(ToolOutput):
    pattern: str
    glob: str | None
    ref: SideName
    sha: str
    note: str | None = None
    page: Page[GrepHit]


def search_code(reader: RepoReader, r: ResolvedRange, args: SearchCodeArgs) -> SearchCodeResult:
    if not args.pattern:
        raise ToolError("empty pattern: pass a regular expression to search for")
    glob = clean_glob(args.glob) if args.glob else None
    sha = side_sha(r, args.ref)
    hits = [_clip(hit) for hit in reader.grep(sha, args.pattern, glob)]
    return SearchCodeResult(
        pattern=args.pattern,
        glob=glob,
        ref=args.ref,
        sha=sha,
        note=(
            f"search stopped after {MAX_GREP_HITS} matches; narrow the pattern or the glob"
            if len(hits) >= MAX_GREP_HITS
            else None
        ),
        page=paginate(hits, args.offset, args.limit),
    )


def _clip(hit: GrepHit) -> GrepHit:
    if len(hit.match) <= MAX_MATCH_CHARS:
        return hit
    return hit.model_copy(update={"match": hit.match[:MAX_MATCH_CHARS] + " [...]"})
