"""The JSON report round-trips and matches its published schema."""

from __future__ import annotations

import json

import jsonschema

from prflow.impact.models import SCHEMA_VERSION, ImpactReport, LlmStatus
from prflow.impact.render.json_report import json_schema, render_json
from tests.render.report_factory import llm_outcome, make_report


def test_json_round_trips_to_an_equal_report() -> None:
    report = make_report()
    assert ImpactReport.model_validate_json(render_json(report)) == report


def test_json_carries_the_schema_version_and_score() -> None:
    data = json.loads(render_json(make_report(llm=llm_outcome(LlmStatus.skipped))))
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["risk"]["score"] == make_report().risk.score
    assert data["llm"]["status"] == "skipped"


def test_json_output_validates_against_the_published_schema() -> None:
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(render_json(make_report())), schema)
    broken = json.loads(render_json(make_report()))
    broken["risk"]["score"] = 140
    assert not jsonschema.Draft202012Validator(schema).is_valid(broken)
