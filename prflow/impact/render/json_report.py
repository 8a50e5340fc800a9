"""The impact report as versioned JSON: the model is the schema, so both come from it."""

from __future__ import annotations

from typing import Any

from prflow.impact.models import ImpactReport


def render_json(report: ImpactReport) -> str:
    """Indented JSON that ``ImpactReport.model_validate_json`` reads back unchanged."""
    return report.model_dump_json(indent=2)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``render_json`` output, for consumers that validate it."""
    return ImpactReport.model_json_schema()
