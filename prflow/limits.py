"""Sane bounds for every number a user, a file or a delivery can hand prflow.

A value such as ``inf`` (``--budget-usd inf``, ``usd = 1e400`` in TOML, which
TOML reads as infinity) or ``1e308`` must be refused where it enters, in one
line, before anything starts: JSON has no infinity, so such a value turns into
``null`` on its way into a workflow, which then cannot decode its own input.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import Field

MAX_USD = 100_000.0
MAX_TOKENS = 10_000_000_000
MAX_ITERATIONS = 100_000
MAX_SECONDS = 7 * 24 * 3600

Usd = Annotated[float, Field(ge=0, le=MAX_USD, allow_inf_nan=False)]
Tokens = Annotated[int, Field(ge=0, le=MAX_TOKENS)]
Iterations = Annotated[int, Field(ge=0, le=MAX_ITERATIONS)]
Seconds = Annotated[float, Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False)]


def out_of_bounds(value: float, high: float, low: float = 0.0) -> bool:
    """Whether ``value`` is not a finite number from ``low`` to ``high``."""
    return not math.isfinite(value) or not low <= value <= high
