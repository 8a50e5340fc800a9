"""The prompt-economy defaults hold a 30-turn impact run to a sane size, even at its worst.

The run is played with the product's own request shaping (per-turn cap,
elision, cache marks) and counted by the scripted server's prompt cache
(1,024-token minimum, 20-block lookback), without Temporal: every turn the
model asks for three big diffs, so every turn fills the cap.
"""

from __future__ import annotations

from typing import Any

from prflow.agent.economy import PromptEconomy, next_elision_point
from prflow.agent.transcript import cap_texts, content_chars, elide_tool_results
from prflow.impact.llm_phase import SUBMIT_TOOL
from prflow.llm.cache_control import mark_conversation, mark_last_tool, system_blocks
from prflow.llm.token_estimate import tokens_for_chars
from prflow.tools.registry import TOOL_SPECS
from tests.support.scripted_anthropic import PromptCache

TURNS = 30
RESULTS_PER_TURN = 3
RESULT_CHARS = 20_000
Message = dict[str, Any]


def diff_text(turn: int, index: int) -> str:
    line = f"+    value_{turn}_{index} = compute(value_{turn}_{index}, limit=10)\n"
    return (line * (RESULT_CHARS // len(line) + 1))[:RESULT_CHARS]


def play(economy: PromptEconomy) -> list[tuple[int, int, int]]:
    """(fresh, cache write, cache read) prompt tokens of each of the run's requests."""
    cache = PromptCache(min_cacheable_tokens=1_024)
    tools = mark_last_tool([tool.model_dump() for tool in [*TOOL_SPECS, SUBMIT_TOOL]])
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "x" * 3_000}]}]
    elide_before = 0
    usages = []
    for turn in range(TURNS):
        body = {
            "model": "claude",
            "system": system_blocks("s" * 2_000),
            "tools": tools,
            "messages": mark_conversation(elide_tool_results(messages, elide_before)),
        }
        usage = cache.usage_for(body)
        usages.append(usage)
        uses = [
            {
                "type": "tool_use",
                "id": f"t{turn}.{i}",
                "name": "git_diff",
                "input": {"file": str(i)},
            }
            for i in range(RESULTS_PER_TURN)
        ]
        texts, _ = cap_texts(
            [diff_text(turn, i) for i in range(RESULTS_PER_TURN)],
            economy.max_tool_result_chars_per_turn,
        )
        results = [
            {"type": "tool_result", "tool_use_id": use["id"], "content": text, "is_error": False}
            for use, text in zip(uses, texts, strict=True)
        ]
        messages += [{"role": "assistant", "content": uses}, {"role": "user", "content": results}]
        next_prompt = sum(usage) + 100 + tokens_for_chars(content_chars(results))
        elide_before = next_elision_point(elide_before, len(messages), next_prompt, economy)
    return usages


def test_no_request_of_a_worst_case_run_grows_past_fifty_thousand_tokens() -> None:
    usages = play(PromptEconomy())
    prompts = [sum(usage) for usage in usages]

    assert max(prompts) < 50_000
    assert sum(prompts) < 1_100_000
    reads = sum(read for _, _, read in usages[1:])
    assert reads / sum(prompts[1:]) > 0.6, "elision must not cost the cache most of its reads"


def test_the_defaults_halve_what_the_previous_ones_let_through() -> None:
    previous = PromptEconomy(max_tool_result_chars_per_turn=48_000, elide_after_tokens=60_000)

    now = sum(sum(usage) for usage in play(PromptEconomy()))
    before = sum(sum(usage) for usage in play(previous))

    assert now < before * 0.6
