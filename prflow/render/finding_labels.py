"""How reports name the kinds of static findings, in one place for every kind's report."""

from __future__ import annotations

from prflow.analysis.findings import BreakingKind, StaleReason

KIND_LABEL: dict[BreakingKind, str] = {
    BreakingKind.removed_export: "removed export",
    BreakingKind.renamed_export: "renamed export",
    BreakingKind.changed_signature: "changed signature",
    BreakingKind.changed_type: "changed type",
}

STALE_REASON_LABEL: dict[StaleReason, str] = {
    StaleReason.removed_symbol: "names a removed symbol",
    StaleReason.renamed_symbol: "names a renamed symbol",
    StaleReason.deleted_path: "names a deleted path",
    StaleReason.renamed_path: "names a moved path",
}
