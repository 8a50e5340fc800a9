"""Doc sync's finding step in process, from a stored ``prflow impact`` report (for tuning).

The same domain calls as the ``docsync_find`` activity: targets from the
report's changed files and breaking changes with both commits' trees, then the
affected docs at head. No server, no workflow: quick to rerun after a change to
:mod:`prflow.docsync`; the bench's timed figures still come from the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.impact.repos import BASE_REF, HEAD_REF, git
from prflow.analysis.categories import categorize
from prflow.analysis.findings import BreakingChange
from prflow.changes import ChangedFile
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.targets import find_targets
from prflow.git.repo import GitRepoReader, open_local


def findings_in_process(repo: Path, impact_report: Path) -> dict[str, object]:
    """The findings (``docs``, ``targets``) as the JSON report would hold them."""
    report = json.loads(impact_report.read_text(encoding="utf-8"))
    # each file's category as the code at hand judges it, as a fresh run would (the stored
    # report may predate a change to :func:`prflow.analysis.categories.categorize`)
    changed = [
        ChangedFile.model_validate({**c, "category": categorize(c["path"])})
        for c in report["changed_files"]
    ]
    breaking = [BreakingChange.model_validate(b) for b in report["breaking_changes"]]
    reader = GitRepoReader(open_local(str(repo)))
    base = reader.tree(git(repo, "rev-parse", BASE_REF))
    head = reader.tree(git(repo, "rev-parse", HEAD_REF))
    targets = find_targets(changed, breaking, base, head)
    changed_paths = [c.path for c in changed] + [c.old_path for c in changed if c.old_path]
    findings = find_affected_docs(targets, head, changed_paths=changed_paths)
    dumped: dict[str, object] = findings.model_dump(mode="json")
    return dumped
