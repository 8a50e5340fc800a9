"""The impact agent's first message: the range, the changed files and the static findings.

Every request of the conversation repeats this message, so each character is
paid once per model turn. It holds what the model needs to plan its tool calls
and nothing only the report uses: JSON without whitespace, rows instead of
repeated keys, counts instead of long path lists, no empty lists or nulls.
Severity, language, full signatures and expected test names stay in the report.
"""

from __future__ import annotations

import json
from typing import Any

from prflow.analysis.findings import BreakingChange, StaleDocRef
from prflow.changes import ChangedFile
from prflow.impact.stage_inputs import StaticFindings

MAX_CONTEXT_FILES = 200
MAX_LISTED_IMPORTERS = 30
FILE_COLUMNS = "path, status, category, added, deleted, old path if renamed"


def compact_json(value: object) -> str:
    """JSON as the model should read it: no indentation, no spaces, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def context_message(
    *, repo: str, base: str, head: str, changed: list[ChangedFile], static: StaticFindings
) -> str:
    """The first user message; the system prompt tells the model not to fetch any of it again."""
    shown = changed[:MAX_CONTEXT_FILES]
    added = sum(f.additions for f in changed)
    deleted = sum(f.deletions for f in changed)
    parts = [
        f"Pull request in {repo}: base {base}, head {head}.",
        f"Changed files ({len(changed)}, +{added} -{deleted}) as [{FILE_COLUMNS}]:\n"
        + compact_json([file_row(f) for f in shown]),
    ]
    if len(changed) > len(shown):
        parts.append(
            f"Only the first {len(shown)} files are listed; list_changed_files with "
            f"offset={len(shown)} returns the other {len(changed) - len(shown)}."
        )
    view = static_view(static)
    if view:
        parts.append(
            f"Static findings (symbols as name:line, at base if removed):\n{compact_json(view)}"
        )
    else:
        parts.append("Static analysis found no breaking changes, test gaps or stale docs.")
    return "\n".join(parts)


def file_row(changed: ChangedFile) -> list[str | int]:
    row: list[str | int] = [
        changed.path,
        changed.status.value,
        "binary" if changed.binary else changed.category.value,
        changed.additions,
        changed.deletions,
    ]
    if changed.old_path:
        row.append(changed.old_path)
    return row


def static_view(static: StaticFindings) -> dict[str, Any]:
    """The findings the model should verify or build on, without empty entries."""
    graph = static.impact_graph
    importers = graph.direct_importers
    view: dict[str, Any] = {
        "breaking_changes": breaking_groups(static.breaking_changes),
        "tests_not_updated": sorted(
            gap.source_file
            for gap in static.test_gaps
            if gap.existing_tests and not gap.tests_updated
        ),
        "no_tests_found": sorted(
            gap.source_file for gap in static.test_gaps if not gap.test_exists
        ),
        "stale_docs": [stale_doc(ref) for ref in static.stale_docs],
        "direct_importers": importers[:MAX_LISTED_IMPORTERS],
        "direct_importers_not_listed": max(len(importers) - MAX_LISTED_IMPORTERS, 0),
        "indirectly_affected_files": len(graph.indirectly_affected),
        "config_changes": [[change.path, change.tier.value] for change in static.config_changes],
        "not_analysed": [
            _without_empty(item.model_dump(mode="json")) for item in static.not_analysed
        ],
    }
    return _without_empty(view)


def breaking_groups(changes: list[BreakingChange]) -> list[dict[str, Any]]:
    """One entry per (file, kind, detail, new name): many symbols often break the same way."""
    groups: dict[tuple[str, str, str, str | None], list[BreakingChange]] = {}
    for change in changes:
        key = (change.file, change.kind.value, change.detail, change.new_name)
        groups.setdefault(key, []).append(change)
    entries = []
    for (file, kind, detail, new_name), members in groups.items():
        consumers = {path for member in members for path in member.consumers}
        entries.append(
            _without_empty(
                {
                    "file": file,
                    "kind": kind,
                    "detail": detail,
                    "new_name": new_name,
                    "symbols": [_symbol_at(member) for member in members],
                    "consumer_files": len(consumers),
                }
            )
        )
    return entries


def stale_doc(ref: StaleDocRef) -> dict[str, Any]:
    return _without_empty(
        {
            "doc": f"{ref.doc_file}:{ref.line}",
            "names": ref.target,
            "reason": ref.reason.value,
            "replacement": ref.replacement,
            "excerpt": ref.excerpt,
        }
    )


def _symbol_at(change: BreakingChange) -> str:
    return change.symbol if change.line is None else f"{change.symbol}:{change.line}"


def _without_empty(mapping: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in mapping.items() if value not in (None, [], {}, "", 0)}
