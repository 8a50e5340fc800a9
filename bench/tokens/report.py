"""The printed result: per-turn prompt tokens of both runs, shares, totals, the ratio last."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench.tokens.pr_slice import LABEL
from bench.tokens.usage import RunTokens, TurnTokens
from tests.support.scripted_anthropic import CACHE_LOOKBACK_BLOCKS, MAX_CACHE_BREAKPOINTS, Turn

TARGET_READ_SHARE = 0.80
TARGET_PROMPT_TOKENS = 25_000


def _calls(turn: Turn) -> str:
    counts = Counter(use.name for use in turn.tool_uses)
    return ", ".join(f"{name}×{n}" if n > 1 else name for name, n in counts.items()) or "-"


def _cells(turn: TurnTokens) -> str:
    return f"{turn.fresh:>7,} {turn.cache_write:>7,} {turn.cache_read:>7,} {turn.prompt:>8,}"


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def print_report(
    script: list[Turn],
    ours: RunTokens,
    anchor: RunTokens,
    *,
    first_message_chars: tuple[int, int],
    first_prompt: dict[str, int],
    totals: dict[str, Any],
    min_tokens: int,
) -> None:
    print(
        f"prompt tokens of one impact agent run: {LABEL} "
        f"({totals['files']} files, +{totals['additions']} -{totals['deletions']}), "
        f"{len(script)} scripted turns"
    )
    print(
        f"scripted Messages API: 4 characters a token, cache writes from {min_tokens:,} tokens, "
        f"{CACHE_LOOKBACK_BLOCKS}-block lookback, at most {MAX_CACHE_BREAKPOINTS} breakpoints"
    )
    print("prompt = every prompt token of the request: fresh + cache write + cache read")
    print()
    cells = f"{'fresh':>7} {'write':>7} {'read':>7} {'prompt':>8}"
    width = len(cells)
    ours_title, anchor_title = "prflow (this release)", "anchor (0.1 requests)"
    print(f"{'':<4} {'results of the calls':<34} | {ours_title:<{width}} | {anchor_title}")
    print(f"{'turn':<4} {'the previous turn made':<34} | {cells} | {cells}")
    previous = ["-", *(_calls(turn) for turn in script)]
    for index, (mine, theirs) in enumerate(zip(ours.turns, anchor.turns, strict=True)):
        print(f"{index + 1:<4} {previous[index]:<34} | {_cells(mine)} | {_cells(theirs)}")
    print(f"{'total':<39} | {ours.prompt:>{width},} | {anchor.prompt:>{width},}")
    print()
    share, anchor_share = ours.read_share_after_first, anchor.read_share_after_first
    print(f"cache reads after turn 1:        prflow {share:6.1%}   anchor {anchor_share:6.1%}")
    print(
        f"prompt priced as fresh input:    prflow {ours.priced_as_fresh:,.0f}   "
        f"anchor {anchor.priced_as_fresh:,.0f}  (writes x1.25, reads x0.1)"
    )
    print(
        f"first message characters:        prflow {first_message_chars[0]:,}   "
        f"anchor {first_message_chars[1]:,}"
    )
    repeated = len(script) * sum(first_prompt.values())
    parts = ", ".join(f"{name} {tokens:,}" for name, tokens in first_prompt.items())
    print(
        f"prflow turn 1 prompt: {parts}; repeated by all {len(script)} requests: "
        f"{repeated:,} of {ours.prompt:,}"
    )
    print(
        f"targets: cache reads after turn 1 >= {TARGET_READ_SHARE:.0%}: "
        f"{_verdict(share >= TARGET_READ_SHARE)} ({share:.1%}); "
        f"prompt tokens <= {TARGET_PROMPT_TOKENS:,}: "
        f"{_verdict(ours.prompt <= TARGET_PROMPT_TOKENS)} ({ours.prompt:,})"
    )
    print(
        f"ratio prflow/anchor (prompt tokens of the {len(script)}-turn run): "
        f"{ours.prompt / anchor.prompt:.2f}x"
    )
