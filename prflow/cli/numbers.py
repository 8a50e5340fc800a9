"""Numbers from the command line, refused in one line when not finite or out of bounds."""

from __future__ import annotations

from prflow.errors import UserError
from prflow.limits import out_of_bounds


def check_number(option: str, value: float | None, high: float, example: str) -> None:
    """Refuse ``value`` of ``option`` unless it is a finite number from 0 to ``high``."""
    if value is not None and out_of_bounds(value, high):
        raise UserError(
            f"{option} {value!r} is not a number from 0 to {high:,.0f}; e.g. {option} {example}"
        )
