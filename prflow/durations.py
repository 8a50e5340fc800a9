"""Durations as people write them: ``15m``, ``90s``, ``1h30m``, or plain seconds."""

from __future__ import annotations

import math
import re

from prflow.errors import UserError

_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([hms])")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}
MAX_SECONDS = 7 * 24 * 3600.0


def parse_duration(text: str | float, *, what: str = "--deadline") -> float:
    """Seconds in ``text``; a mistake is a :class:`UserError` saying how to write one."""
    if isinstance(text, int | float):
        seconds = float(text)
    else:
        raw = text.strip().lower().replace(" ", "")
        try:
            seconds = float(raw)
        except ValueError:
            parts = _PART.findall(raw)
            if not raw or "".join(f"{n}{u}" for n, u in parts) != raw:
                raise UserError(
                    f"{what} {text!r} is not a duration: write e.g. 15m, 90s or 1h30m"
                ) from None
            seconds = sum(float(number) * _UNITS[unit] for number, unit in parts)
    if not math.isfinite(seconds) or seconds <= 0 or seconds > MAX_SECONDS:
        raise UserError(f"{what} must be more than 0 and at most 7 days, not {text!r}")
    return seconds
