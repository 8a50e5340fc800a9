"""Less spent per conversation: questions get a smaller share and fewer hunks than planned
reviewers, and a layer pass keeps room for the next one and never carries a conversation
that would leave it no turn."""

from __future__ import annotations

from activities.layer_context import continued
from prflow.agent.budget import MIN_USEFUL_OUTPUT_TOKENS, BudgetCaps, no_room_after
from prflow.agent.messages import PreparedPrompt
from prflow.agent.plan import PhasePlan
from prflow.config import PriceRow
from prflow.llm.messages import MessageRef
from prflow.review.agents.reviewer import (
    MAX_DIFF_CHARS,
    QUESTION_DIFF_CHARS,
    InvestigationRequest,
    investigation_dimension,
    reviewer_message,
)
from prflow.review.depth_limits import (
    LIMITS,
    MIN_PASS_TOKENS,
    continued_chars,
    other_phase_tokens,
    pass_tokens,
    question_tokens,
    reviewer_tokens,
    token_capped,
)
from prflow.review.models import Dimension, FindingSource
from prflow.review.run_models import MODEL_PHASES, ReviewPhase
from prflow.review.stage_models import LayerContinuation
from prflow.store.blobs import put_json


def _plan(tokens: int) -> PhasePlan:
    price = PriceRow(input=3.0, output=15.0, cache_write=3.75, cache_read=0.3)
    caps = BudgetCaps(usd=1.0, tokens=tokens, iterations=10, wall_clock_seconds=300)
    return PhasePlan(model="m", price=price, caps=caps, task_queue="q")


def test_an_investigation_or_deep_dive_gets_less_than_a_planned_reviewer() -> None:
    plans = {phase: _plan(10_000_000) for phase in MODEL_PHASES}
    for depth, limits in LIMITS.items():
        capped = token_capped(plans, depth)
        for phase in (ReviewPhase.investigations, ReviewPhase.deep_dives):
            assert capped[phase].caps.tokens == question_tokens(depth) < reviewer_tokens(depth)
        for phase in (ReviewPhase.reviewers, ReviewPhase.gap_reviewers):
            assert capped[phase].caps.tokens == reviewer_tokens(depth)
        # every slot at a planned reviewer's share still fits: questions only spend less
        assert other_phase_tokens(depth) + limits.reviewers * reviewer_tokens(depth) <= (
            limits.prompt_tokens
        )


def _dimension(source: FindingSource, paths: list[str]) -> Dimension:
    parent = Dimension(id="d1", name="Correctness", prompt="Check it.", target_files=paths)
    if source == FindingSource.reviewer:
        return parent
    return investigation_dimension(parent, InvestigationRequest(question="Why?", files=paths), 1)


def test_a_question_is_shown_fewer_hunks_and_told_to_fetch_the_rest() -> None:
    paths = [f"pkg/m{i}.py" for i in range(4)]
    hunk = "@@ -1,3 +1,3 @@\n" + "+x = 1\n" * 1_000  # 7k characters each
    diffs = {path: hunk for path in paths}
    planned = reviewer_message(_dimension(FindingSource.reviewer, paths), diffs=diffs)
    question = reviewer_message(_dimension(FindingSource.investigation, paths), diffs=diffs)
    assert "not shown" not in planned, "a planned reviewer sees all four (28k < 40k)"
    assert len(planned) > 4 * len(hunk) and 4 * len(hunk) < MAX_DIFF_CHARS
    shown = QUESTION_DIFF_CHARS // len(hunk)
    assert 0 < shown < 4
    assert question.count("not shown: fetch it with git_diff") == 4 - shown
    assert len(question) < QUESTION_DIFF_CHARS + 1_000


def test_a_pass_before_the_last_leaves_room_for_the_next() -> None:
    assert pass_tokens(30_000, 0.5) == 15_000
    assert pass_tokens(14_000, 0.5) == MIN_PASS_TOKENS, "the floor while that much is left"
    assert 14_000 - pass_tokens(14_000, 0.5) < MIN_PASS_TOKENS
    assert 20_000 - pass_tokens(20_000, 0.5) >= MIN_PASS_TOKENS
    assert 17_000 - pass_tokens(17_000, 0.6) >= MIN_PASS_TOKENS, "capped to leave the floor"
    assert pass_tokens(5_000, 0.5) == 5_000 and pass_tokens(7_000, 1.0) == 7_000


def _pass(db_url: str, chars: int, max_chars: int | None) -> PreparedPrompt | None:
    first = put_json(db_url, [{"type": "text", "text": "x" * chars}])
    answer = put_json(
        db_url,
        [{"type": "tool_use", "id": "t1", "name": "submit_challenges", "input": {"verdicts": []}}],
    )
    earlier = LayerContinuation(
        transcript=[MessageRef(role="user", blob_key=first),
                    MessageRef(role="assistant", blob_key=answer)],
        terminal_tool="submit_challenges",
        max_chars=max_chars,
    )  # fmt: skip
    prompt = PreparedPrompt(
        system_key=first, system_chars=1, tools_key=None, tools_chars=0, tool_names=[],
        message_key=first, message_chars=1,
    )  # fmt: skip
    return continued(db_url, earlier, prompt, "New findings since your last submission (1)")


def test_a_pass_continues_only_a_conversation_its_share_can_carry(db_url: str) -> None:
    budget = continued_chars(pass_tokens(12_000, 0.5))
    assert budget == int(8_000 * 0.5 * 3)
    grown = _pass(db_url, budget - 500, budget)
    assert grown is not None and grown.transcript_len == 3
    assert _pass(db_url, budget + 500, budget) is None, "too large for the pass: fresh"
    assert _pass(db_url, budget + 500, None) is not None, "unbounded: the old 160k rule"


def _forced_call_fits(cap: int, *, first: int, answer: int, results: int, grows: bool) -> bool:
    """An agent told its share, as the loop runs it: every turn answers ``answer`` tokens and
    gets ``results`` tokens of tool results; whether its forced last call fits the cap."""
    output = MIN_USEFUL_OUTPUT_TOKENS
    spent, prompt = 0, first
    if no_room_after(cap, prompt, output):
        return prompt + output <= cap
    while True:
        spent += prompt + answer
        following = prompt + answer + results
        growth = following - prompt if grows else 0
        if no_room_after(cap - spent, following, output, growth):
            return following + output <= cap - spent
        prompt = following


def test_the_last_turn_foresees_a_turn_of_large_tool_results() -> None:
    # the first decision (before any turn) has no growth to measure: from 10k on, a first
    # prompt of 3k leaves room for a second call of any of these growths
    caps = range(10_000, 40_000, 25)
    for results in (300, 1_400, 2_500):  # a search; a window and a search; a large window
        grown = [c for c in caps if not _forced_call_fits(
            c, first=3_000, answer=120, results=results, grows=True)]  # fmt: skip
        assert not grown, f"forced last call did not fit at caps {grown[:3]}"
    flat = [c for c in caps if not _forced_call_fits(
        c, first=3_000, answer=120, results=1_400, grows=False)]  # fmt: skip
    assert flat, "without the growth, some share leaves a last call that does not fit"
