"""The review as a SARIF 2.1.0 log, for code scanning and other SARIF consumers.

One rule per finding category; each result's level follows its severity,
its fingerprint is the finding's own (stable across commits), and
``properties`` carry the score, the confidence, who found it and whether its
text is model-written. A finding about lines the PR deletes has no region:
SARIF regions point into the analysed (head) version.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from prflow.file_names import raw_name
from prflow.render.sarif_format import SARIF_SCHEMA_URI, SARIF_VERSION, SRCROOT
from prflow.review.models import DiffSide, FindingCategory, ReviewSeverity
from prflow.review.report import ReviewReport
from prflow.review.synthesis import ScoredFinding

FINGERPRINT_KEY = "prflowReviewFinding/v1"
LEVEL: dict[ReviewSeverity, str] = {
    ReviewSeverity.critical: "error",
    ReviewSeverity.important: "warning",
    ReviewSeverity.suggestion: "note",
    ReviewSeverity.nitpick: "note",
}
RULE_TEXT: dict[FindingCategory, str] = {
    FindingCategory.correctness: "The change behaves incorrectly",
    FindingCategory.security: "The change weakens security",
    FindingCategory.reliability: "The change fails badly under errors or load",
    FindingCategory.performance: "The change costs more time or memory than it should",
    FindingCategory.compatibility: "The change breaks code or data that depends on it",
    FindingCategory.tests: "The change is not tested as it should be",
    FindingCategory.docs: "Documentation is wrong or missing after the change",
    FindingCategory.maintainability: "The change is harder to maintain than it needs to be",
    FindingCategory.style: "The change departs from the project's style",
}
RULES = list(FindingCategory)
RULE_INDEX = {category: index for index, category in enumerate(RULES)}

JsonObject = dict[str, Any]


def _rule(category: FindingCategory) -> JsonObject:
    return {
        "id": f"review/{category.value}",
        "name": category.value.capitalize(),
        "shortDescription": {"text": RULE_TEXT[category]},
        "defaultConfiguration": {"level": "warning"},
    }


def _result(finding: ScoredFinding) -> JsonObject:
    location: JsonObject = {
        "artifactLocation": {"uri": quote(raw_name(finding.file)), "uriBaseId": SRCROOT}
    }
    if finding.side == DiffSide.right and not finding.file_level:
        location["region"] = {"startLine": finding.line_start, "endLine": finding.line_end}
    prefix = "Model-written: " if finding.origin == "model" else ""
    return {
        "ruleId": f"review/{finding.category.value}",
        "ruleIndex": RULE_INDEX[finding.category],
        "level": LEVEL[finding.severity],
        "message": {"text": f"{prefix}{finding.title}: {finding.body}"},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "severity": finding.severity.value,
            "confidence": finding.confidence,
            "score": finding.score,
            "origin": finding.origin,
            "foundBy": finding.dimension_name,
            "side": finding.side.value,
            "multipliers": [m.value for m in finding.multipliers],
        },
    }


def render_review_sarif(report: ReviewReport, tool_version: str) -> JsonObject:
    run: JsonObject = {
        "tool": {
            "driver": {
                "name": "prflow",
                "version": tool_version,
                "rules": [_rule(category) for category in RULES],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"description": {"text": "The repository root"}}},
        "results": [_result(f) for f in report.findings],
        "properties": {
            "reviewEvent": report.event.value,
            "complete": report.complete,
            "riskScore": report.risk.score,
            "baseSha": report.base_sha,
            "headSha": report.head_sha,
            "usedModel": report.used_model,
        },
    }
    if report.pull_request is not None:
        run["properties"]["pullRequest"] = report.pull_request.slug
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
