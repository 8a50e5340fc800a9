"""``--deadline`` and ``[budget] deadline`` as people write them."""

from __future__ import annotations

import pytest

from prflow.config import BudgetSettings
from prflow.durations import parse_duration
from prflow.errors import UserError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("15m", 900.0), ("90s", 90.0), ("1h30m", 5400.0), ("600", 600.0), (" 2M ", 120.0)],
)
def test_durations_parse_to_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "15x", "m", "-5m", "0", "inf", "nan", "1e400", "8d", "9h9"])
def test_a_bad_duration_says_how_to_write_one(text: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_duration(text)
    assert "--deadline" in caught.value.message


def test_the_config_key_takes_the_same_spelling() -> None:
    assert BudgetSettings.model_validate({"deadline": "15m"}).deadline == 900.0
    assert BudgetSettings().deadline is None
    with pytest.raises(ValueError, match="not a duration"):
        BudgetSettings.model_validate({"deadline": "soon"})
