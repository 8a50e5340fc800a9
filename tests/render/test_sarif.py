"""The SARIF log validates against the official 2.1.0 schema and says what code scanning needs."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from prflow.analysis.findings import TestGap as SourceTestInfo
from prflow.impact.models import LlmStatus
from prflow.impact.render.sarif import render_sarif
from prflow.severity import Severity
from tests.render.report_factory import llm_outcome, make_report
from tests.support.sarif_schema import sarif_schema


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(sarif_schema())


def results_by_rule(log: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for result in log["runs"][0]["results"]:
        grouped.setdefault(result["ruleId"], []).append(result)
    return grouped


def test_log_validates_against_official_schema(validator: jsonschema.Draft7Validator) -> None:
    log = render_sarif(make_report(), "0.1.0")
    errors = [error.message for error in validator.iter_errors(json.loads(json.dumps(log)))]
    assert errors == []


def test_schema_check_is_not_vacuous(validator: jsonschema.Draft7Validator) -> None:
    log = render_sarif(make_report(), "0.1.0")
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(log)


def test_empty_report_still_validates(validator: jsonschema.Draft7Validator) -> None:
    report = make_report(
        breaking_changes=[],
        test_gaps=[],
        stale_docs=[],
        config_changes=[],
        llm=llm_outcome(LlmStatus.skipped),
    )
    log = render_sarif(report, "0.1.0")
    assert validator.is_valid(log)
    assert log["runs"][0]["results"] == []


def test_driver_declares_one_rule_per_finding_kind() -> None:
    driver = render_sarif(make_report(), "1.2.3")["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("prflow", "1.2.3")
    assert [rule["id"] for rule in driver["rules"]] == [
        "removed-export",
        "renamed-export",
        "changed-signature",
        "changed-type",
        "test-gap",
        "stale-doc",
        "config-change",
        "llm-finding",
    ]


def test_results_cover_each_finding_with_levels_and_locations() -> None:
    grouped = results_by_rule(render_sarif(make_report(), "0.1.0"))
    [removed] = grouped["removed-export"]
    assert removed["level"] == "error"
    location = removed["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "src/client.py", "uriBaseId": "SRCROOT"},
        "region": {"startLine": 88},
    }
    [signature] = grouped["changed-signature"]
    assert signature["level"] == "warning"
    assert "parameter timeout became required" in signature["message"]["text"]
    assert "src/jobs/sync.py" in signature["message"]["text"]
    assert len(grouped["test-gap"]) == 2
    [config] = grouped["config-change"]
    assert "region" not in config["locations"][0]["physicalLocation"]
    [llm] = grouped["llm-finding"]
    assert llm["level"] == "warning"
    assert llm["locations"][0]["physicalLocation"]["region"] == {"startLine": 14}


def test_severity_maps_to_sarif_level() -> None:
    report = make_report()
    finding = report.llm.findings[0]
    levels = {}
    for severity in Severity:
        outcome = report.llm.model_copy(
            update={"findings": [finding.model_copy(update={"severity": severity})]}
        )
        log = render_sarif(report.model_copy(update={"llm": outcome}), "0.1.0")
        levels[severity] = results_by_rule(log)["llm-finding"][0]["level"]
    assert levels == {Severity.high: "error", Severity.medium: "warning", Severity.low: "note"}


def test_updated_tests_are_not_reported_as_gaps() -> None:
    tested = SourceTestInfo(
        source_file="src/ok.py",
        expected_tests=["tests/test_ok.py"],
        existing_tests=["tests/test_ok.py"],
        tests_updated=True,
    )
    log = render_sarif(make_report(test_gaps=[tested]), "0.1.0")
    assert "test-gap" not in results_by_rule(log)


def test_fingerprints_survive_line_moves_but_differ_per_finding() -> None:
    report = make_report()
    moved = [
        change.model_copy(update={"line": (change.line or 0) + 30})
        for change in report.breaking_changes
    ]
    before = render_sarif(report, "0.1.0")["runs"][0]["results"]
    after = render_sarif(report.model_copy(update={"breaking_changes": moved}), "0.1.0")
    prints_before = [result["partialFingerprints"] for result in before]
    prints_after = [result["partialFingerprints"] for result in after["runs"][0]["results"]]
    assert prints_before == prints_after
    assert len({json.dumps(p, sort_keys=True) for p in prints_before}) == len(prints_before)


def test_run_properties_carry_the_risk() -> None:
    report = make_report()
    properties = render_sarif(report, "0.1.0")["runs"][0]["properties"]
    assert properties["riskScore"] == report.risk.score
    assert properties["riskLevel"] == report.risk.level.value
    assert properties["pullRequest"] == "acme/widgets#42"


def test_paths_are_uri_encoded(validator: jsonschema.Draft7Validator) -> None:
    change = make_report().breaking_changes[0].model_copy(update={"file": "src/my module#1.py"})
    log = render_sarif(make_report(breaking_changes=[change]), "0.1.0")
    uri = results_by_rule(log)["changed-signature"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"] == "src/my%20module%231.py"
    assert validator.is_valid(log)


def test_each_result_says_who_wrote_its_message() -> None:
    log = render_sarif(make_report(), "0.1.0")
    grouped = results_by_rule(log)
    model = grouped.pop("llm-finding")
    assert {r["properties"]["origin"] for r in model} == {"model"}
    assert all(r["message"]["text"].startswith("Model-written: ") for r in model)
    assert {r["properties"]["origin"] for rs in grouped.values() for r in rs} == {"prflow"}
    properties = log["runs"][0]["properties"]
    assert properties["modelFindingsDropped"] == 1
    assert "risk.score" in properties["modelText"]
