"""Token counts of model requests, split the way the price table bills them.

The one usage shape in prflow: a model turn reports it, a phase's spend adds it
up, a ledger row stores it and ``prflow costs`` sums it.
"""

from __future__ import annotations

from pydantic import BaseModel


class Usage(BaseModel):
    """Input, output, cache-write and cache-read tokens of one or more requests."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        """Every token the request(s) sent, cached or not."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    @property
    def tokens(self) -> int:
        """Every token billed, sent or generated."""
        return self.prompt_tokens + self.output_tokens

    def add_usage(self, other: Usage) -> None:
        """Add ``other``'s token counts to these."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.cache_read_tokens += other.cache_read_tokens

    def usage(self) -> Usage:
        """Just the token counts (a subclass's other fields dropped)."""
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_write_tokens=self.cache_write_tokens,
            cache_read_tokens=self.cache_read_tokens,
        )
