"""``list_test_files``: the tests that exercise a source file, and whether the PR touched them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.analysis.test_mapping import find_related_tests
from prflow.repo_models import ResolvedRange
from prflow.tools.output import ToolOutput
from prflow.tools.paths import clean_repo_path
from prflow.tools.reader import RepoReader
from prflow.tools.refs import SideName, side_sha

NAME = "list_test_files"
DESCRIPTION = (
    "Test files of a source file, by naming convention and by imports, each marked if the "
    "pull request changed it. At head unless ref='base'."
)


class ListTestFilesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="Repository-relative path of a source file")
    ref: SideName = "head"


class RelatedTest(BaseModel):
    path: str
    changed_in_pr: bool


class ListTestFilesResult(ToolOutput):
    source: str
    ref: SideName
    tests: list[RelatedTest]


def list_test_files(
    reader: RepoReader, r: ResolvedRange, args: ListTestFilesArgs
) -> ListTestFilesResult:
    source = clean_repo_path(args.path)
    sha = side_sha(r, args.ref)
    found = find_related_tests(source, reader.tree(sha), reader.import_graph(sha))
    changed = {c.path for c in reader.changed_files(r.merge_base_sha, r.head_sha)}
    tests = [RelatedTest(path=p, changed_in_pr=p in changed) for p in found]
    return ListTestFilesResult(source=source, ref=args.ref, tests=tests)
