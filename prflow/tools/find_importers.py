"""``find_importers``: which files import a given file (the reverse dependency map)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.repo_models import ResolvedRange
from prflow.tools.output import Page, ToolOutput, paginate
from prflow.tools.paths import clean_repo_path
from prflow.tools.reader import RepoReader
from prflow.tools.refs import SideName, side_sha

NAME = "find_importers"
DESCRIPTION = (
    "Files that import `path` (Python and JS/TS imports resolved to repository files): "
    "direct importers, or with transitive=true every file that reaches it, with its hop "
    "distance; once per changed source file is enough. At head unless ref='base' (for a "
    "deleted file). Paged: with `has_next`, call again at `next_offset`."
)


class FindImportersArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="Repository-relative path of the imported file")
    transitive: bool = False
    ref: SideName = "head"
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=100, ge=1, le=500)


class Importer(BaseModel):
    path: str
    distance: int = Field(description="Import hops to the target; 1 means a direct import")


class FindImportersResult(ToolOutput):
    path: str
    ref: SideName
    transitive: bool
    note: str | None = None
    page: Page[Importer]


def find_importers(
    reader: RepoReader, r: ResolvedRange, args: FindImportersArgs
) -> FindImportersResult:
    path = clean_repo_path(args.path)
    sha = side_sha(r, args.ref)
    graph = reader.import_graph(sha)
    if args.transitive:
        distances = graph.transitive_importers([path])
        importers = [Importer(path=p, distance=d) for p, d in distances.items()]
        importers.sort(key=lambda imp: (imp.distance, imp.path))
    else:
        importers = [Importer(path=p, distance=1) for p in graph.importers_of(path)]
    note = None
    if path not in set(reader.list_files(sha)):
        other = "base" if args.ref == "head" else "head"
        note = f"{path} does not exist at {args.ref}; try ref='{other}' if it was added or deleted"
    return FindImportersResult(
        path=path,
        ref=args.ref,
        transitive=args.transitive,
        note=note,
        page=paginate(importers, args.offset, args.limit),
    )
