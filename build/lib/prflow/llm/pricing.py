"""Turn token usage into US dollars with the configured price table.

Prices are per million tokens. Some models bill a whole request at higher
rates once its prompt (fresh input plus cache writes and reads) passes a
threshold, so the band is chosen per request, never per token.
"""

from __future__ import annotations

from prflow.config import PriceRow
from prflow.errors import UserError
from prflow.llm.messages import Usage

TOKENS_PER_PRICE_UNIT = 1_000_000


def uses_long_band(usage: Usage, price: PriceRow) -> bool:
    """True when this request's prompt is long enough for the long-prompt rates."""
    threshold = price.long_prompt_threshold
    return threshold is not None and usage.prompt_tokens > threshold


def usd_for(usage: Usage, price: PriceRow) -> float:
    """Cost of one request; a long prompt bills every token at the long rates."""
    long_band = uses_long_band(usage, price)

    def rate(base: float, long_rate: float | None) -> float:
        return long_rate if long_band and long_rate is not None else base

    total = (
        usage.input_tokens * rate(price.input, price.long_input)
        + usage.output_tokens * rate(price.output, price.long_output)
        + usage.cache_write_tokens * rate(price.cache_write, price.long_cache_write)
        + usage.cache_read_tokens * rate(price.cache_read, price.long_cache_read)
    )
    return total / TOKENS_PER_PRICE_UNIT


def price_for(model: str, prices: dict[str, PriceRow]) -> PriceRow:
    """The price row of ``model``; a model without one is a configuration mistake."""
    row = prices.get(model)
    if row is None:
        known = ", ".join(sorted(prices)) or "none"
        raise UserError(
            f"No price configured for model '{model}' (priced: {known}). Add it under the "
            f'config key models.prices, e.g. a [models.prices."{model}"] table in prflow.toml '
            "with input, output, cache_write and cache_read in USD per million tokens."
        )
    return row
