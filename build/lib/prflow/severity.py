"""How serious a finding is; one scale for every job kind."""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"
