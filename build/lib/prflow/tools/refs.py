"""Turn the ref names tools accept ("head", "base", a commit id) into commit ids."""

from __future__ import annotations

import re
from typing import Literal

from prflow.repo_models import ResolvedRange
from prflow.tools.reader import RepoReader, ToolError

SideName = Literal["head", "base"]
"""'head' is the PR's last commit; 'base' is where it forked (the commit the diff is against)."""

_HEX = re.compile(r"[0-9a-fA-F]{7,64}")


def side_sha(r: ResolvedRange, side: SideName) -> str:
    """The commit a side name stands for."""
    return r.head_sha if side == "head" else r.merge_base_sha


def commit_for(reader: RepoReader, r: ResolvedRange, ref: str) -> str:
    """Resolve 'head', 'base' or a (possibly abbreviated) commit id."""
    name = ref.strip()
    if name in ("head", "base"):
        return side_sha(r, "head" if name == "head" else "base")
    if not _HEX.fullmatch(name):
        raise ToolError(
            f"ref {ref!r} is not understood: use 'head', 'base' or a commit id "
            "(7 to 40 hex characters)"
        )
    sha = reader.resolve_commit(name)
    if sha is None:
        raise ToolError(f"no commit {name!r} in this repository; use 'head' or 'base'")
    return sha
