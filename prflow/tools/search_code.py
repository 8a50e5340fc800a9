"""``search_code``: regex search over the text files of one side of the PR."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.repo_models import ResolvedRange
from prflow.tools.output import Page, ToolOutput, page_footer, paginate, shown_path
from prflow.tools.paths import clean_glob
from prflow.tools.reader import MAX_GREP_HITS, GrepHit, RepoReader, ToolError
from prflow.tools.refs import SideName, side_sha

NAME = "search_code"
DESCRIPTION = (
    "Regular-expression search (POSIX extended, as `git grep -E`: [[:space:]] not \\s, no "
    "lookarounds) over text files at head, or base with ref='base'. `glob` narrows the "
    "files ('*.py', 'src/*.ts'). Gives each matching file, then its line numbers and text. "
    "Paged: the last line says which offset gives more."
)
MAX_MATCH_CHARS = 300
SEARCH_PAGE = 30
"""Matches per page unless asked: enough to judge how a name is used; a broad pattern pages
or is narrowed (each page is sent with every later request of the conversation)."""


class SearchCodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Extended regular expression, e.g. 'def (load|save)_config'")
    glob: str | None = None
    ref: SideName = "head"
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=SEARCH_PAGE, ge=1, le=200)


class SearchCodeResult(ToolOutput):
    pattern: str
    glob: str | None
    ref: SideName
    sha: str
    note: str | None = None
    page: Page[GrepHit]

    def to_text(self) -> str:
        """Hits grouped by file, one ``line: text`` each: the path is not repeated per hit."""
        where = f" in {self.glob}" if self.glob else ""
        lines = [f"search_code {self.pattern!r}{where} at {self.ref} ({self.sha[:12]})"]
        current: str | None = None
        for hit in self.page.items:
            if hit.file != current:
                current = hit.file
                lines.append(shown_path(hit.file))
            lines.append(f"  {hit.line}: {hit.match}")
        lines.append(page_footer(self.page, "matches"))
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


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
