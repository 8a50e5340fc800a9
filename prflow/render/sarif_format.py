"""The SARIF 2.1.0 log's fixed parts that every kind's SARIF renderer shares."""

from __future__ import annotations

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "SRCROOT"
