"""The impact report as a SARIF 2.1.0 log, for code scanning UIs and other SARIF consumers.

One run, one rule per kind of finding, one result per finding. Locations are
relative to the repository root (``uriBaseId`` ``SRCROOT``), and every result
carries a fingerprint built from what the finding is about rather than its
line number, so re-running on a later commit does not duplicate alerts.

Each result says who wrote its message in ``properties.origin``: ``prflow``
for the static analyzers, ``model`` for model findings (whose message is
model-written text; only their evidence was checked in code). The run's
``riskScore``/``riskLevel`` properties are the computed verdict.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from prflow.analysis.categories import CONFIG_TIER_LABEL
from prflow.analysis.findings import (
    BreakingChange,
    BreakingKind,
    ConfigChange,
    ConfigTier,
    StaleDocRef,
    StaleReason,
    TestGap,
)
from prflow.file_names import raw_name
from prflow.impact.evidence import normalise_whitespace
from prflow.impact.models import MODEL_TEXT_NOTE, ImpactReport, LlmFinding
from prflow.render.sarif_format import SARIF_SCHEMA_URI, SARIF_VERSION, SRCROOT
from prflow.severity import Severity

FINGERPRINT_KEY = "prflowFindingHash/v1"
ORIGIN_STATIC = "prflow"
ORIGIN_MODEL = "model"

LEVEL_BY_SEVERITY: dict[Severity, str] = {
    Severity.high: "error",
    Severity.medium: "warning",
    Severity.low: "note",
}

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    summary: str
    description: str
    default_level: str

    def as_sarif(self) -> JsonObject:
        return {
            "id": self.id,
            "name": self.name,
            "shortDescription": {"text": self.summary},
            "fullDescription": {"text": self.description},
            "defaultConfiguration": {"level": self.default_level},
        }


RULES: tuple[Rule, ...] = (
    Rule(
        "removed-export",
        "RemovedExport",
        "A public symbol was removed",
        "Code importing this symbol will fail at import or call time.",
        "error",
    ),
    Rule(
        "renamed-export",
        "RenamedExport",
        "A public symbol was renamed",
        "Importers still using the old name break until they are updated.",
        "error",
    ),
    Rule(
        "changed-signature",
        "ChangedSignature",
        "A public function's parameters changed",
        "Callers may pass arguments the new signature no longer accepts.",
        "warning",
    ),
    Rule(
        "changed-type",
        "ChangedType",
        "A public type or annotation changed",
        "Consumers relying on the previous type may misbehave or fail type checks.",
        "note",
    ),
    Rule(
        "test-gap",
        "TestGap",
        "Changed source without test updates",
        "The source file changed but none of its tests changed in the same pull request.",
        "warning",
    ),
    Rule(
        "stale-doc",
        "StaleDocReference",
        "Documentation names something that changed",
        "A document refers to a symbol or path this pull request removed or renamed.",
        "warning",
    ),
    Rule(
        "config-change",
        "ConfigChange",
        "A configuration file changed",
        "Build, CI, deployment or runtime configuration changed; review its effect.",
        "warning",
    ),
    Rule(
        "llm-finding",
        "ModelFinding",
        "Model-written finding whose quoted evidence was verified",
        "A finding the model reported. Its message is model-written text; prflow only checked "
        "that the quoted evidence is at the cited line.",
        "warning",
    ),
)
RULE_INDEX: dict[str, int] = {rule.id: index for index, rule in enumerate(RULES)}

RULE_BY_KIND: dict[BreakingKind, str] = {
    BreakingKind.removed_export: "removed-export",
    BreakingKind.renamed_export: "renamed-export",
    BreakingKind.changed_signature: "changed-signature",
    BreakingKind.changed_type: "changed-type",
}


def render_sarif(report: ImpactReport, tool_version: str) -> JsonObject:
    """A SARIF 2.1.0 log (as a JSON-ready dict) with one run for ``report``."""
    results = [
        *(_breaking_result(change) for change in report.breaking_changes),
        *(_test_gap_result(gap) for gap in report.test_gaps if not gap.tests_updated),
        *(_stale_doc_result(ref) for ref in report.stale_docs),
        *(_config_result(change) for change in report.config_changes),
        *(_llm_result(finding) for finding in report.llm.findings),
    ]
    run: JsonObject = {
        "tool": {
            "driver": {
                "name": "prflow",
                "version": tool_version,
                "rules": [rule.as_sarif() for rule in RULES],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"description": {"text": "The repository root"}}},
        "results": results,
        "properties": _run_properties(report),
    }
    if report.repo.startswith(("https://", "http://", "ssh://", "git@")):
        run["versionControlProvenance"] = [
            {"repositoryUri": report.repo, "revisionId": report.head_sha}
        ]
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def _run_properties(report: ImpactReport) -> JsonObject:
    properties: JsonObject = {
        "riskScore": report.risk.score,
        "riskLevel": report.risk.level.value,
        "baseRef": report.base_ref,
        "headRef": report.head_ref,
        "baseSha": report.base_sha,
        "headSha": report.head_sha,
        "modelAnalysis": report.llm.status.value,
        "modelFindingsDropped": len(report.llm.rejected_findings),
        "modelText": MODEL_TEXT_NOTE,
    }
    if report.pull_request is not None:
        properties["pullRequest"] = report.pull_request.slug
    return properties


def _result(
    rule_id: str,
    level: str,
    message: str,
    *,
    path: str,
    line: int | None,
    identity: tuple[str, ...],
    origin: str = ORIGIN_STATIC,
) -> JsonObject:
    uri = quote(raw_name(path))  # the real bytes of an undecodable name, percent-encoded
    location: JsonObject = {"artifactLocation": {"uri": uri, "uriBaseId": SRCROOT}}
    if line is not None and line >= 1:
        location["region"] = {"startLine": line}
    digest = hashlib.sha256("\x1f".join((rule_id, *identity)).encode()).hexdigest()
    return {
        "ruleId": rule_id,
        "ruleIndex": RULE_INDEX[rule_id],
        "level": level,
        "message": {"text": message},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {FINGERPRINT_KEY: digest[:32]},
        "properties": {"origin": origin},
    }


def _breaking_result(change: BreakingChange) -> JsonObject:
    rule_id = RULE_BY_KIND[change.kind]
    renamed = f" (now {change.new_name})" if change.new_name else ""
    consumers = (
        f" {len(change.consumers)} consumer(s): {', '.join(change.consumers[:5])}"
        + (" …" if len(change.consumers) > 5 else "")
        if change.consumers
        else " No consumers found in the repository."
    )
    message = f"{change.symbol}{renamed}: {change.detail}.{consumers}"
    return _result(
        rule_id,
        LEVEL_BY_SEVERITY[change.severity],
        message,
        path=change.file,
        line=change.line,
        identity=(change.file, change.symbol),
    )


def _test_gap_result(gap: TestGap) -> JsonObject:
    if gap.test_exists:
        level = "note"
        message = (
            f"{gap.source_file} changed but its tests were not updated: "
            f"{', '.join(gap.existing_tests[:5])}."
        )
    else:
        level = "warning"
        expected = f" (expected {gap.expected_tests[0]})" if gap.expected_tests else ""
        message = f"{gap.source_file} changed and has no tests{expected}."
    return _result(
        "test-gap", level, message, path=gap.source_file, line=None, identity=(gap.source_file,)
    )


STALE_WORDING: dict[StaleReason, str] = {
    StaleReason.removed_symbol: "a symbol this change removed",
    StaleReason.renamed_symbol: "a symbol this change renamed",
    StaleReason.deleted_path: "a file this change deleted",
    StaleReason.renamed_path: "a file this change moved",
}


def _stale_doc_result(ref: StaleDocRef) -> JsonObject:
    replacement = f"; it is now {ref.replacement}" if ref.replacement else ""
    message = f"Names {ref.target}, {STALE_WORDING[ref.reason]}{replacement}: {ref.excerpt}"
    level = "note" if ref.replacement else "warning"
    identity = (ref.doc_file, ref.target, ref.reason.value)
    return _result("stale-doc", level, message, path=ref.doc_file, line=ref.line, identity=identity)


def _config_result(change: ConfigChange) -> JsonObject:
    serious = change.tier in (ConfigTier.ci_build, ConfigTier.deploy)
    message = f"{CONFIG_TIER_LABEL[change.tier]} file changed (config risk {change.score}/100)."
    level = "warning" if serious else "note"
    return _result(
        "config-change", level, message, path=change.path, line=None, identity=(change.path,)
    )


def _llm_result(finding: LlmFinding) -> JsonObject:
    message = f"Model-written: {finding.title}: {finding.explanation}"
    identity = (finding.file, finding.category.value, normalise_whitespace(finding.evidence))
    level = LEVEL_BY_SEVERITY[finding.severity]
    return _result(
        "llm-finding",
        level,
        message,
        path=finding.file,
        line=finding.line,
        identity=identity,
        origin=ORIGIN_MODEL,
    )
