"""The conversation bench's script (``bench.conversation.script``): what it promises the
bench's figures rest on, checked without running the bench."""

from __future__ import annotations

from bench.conversation.figures import _nonce_of, expected_events
from bench.conversation.repos import cited_line, ops_file
from bench.conversation.script import PUSHES, REPLIES, Kind, draw


def test_a_seed_draws_the_same_script_and_another_seed_another() -> None:
    first, again, other = draw(7, 12, 10), draw(7, 12, 10), draw(8, 12, 10)
    assert first == again
    assert first != other
    assert len(first.order) == 120
    assert {(pr, i) for pr, i in first.order} == {(pr, i) for pr in range(12) for i in range(10)}
    for pr in range(12):
        assert [i for p, i in first.order if p == pr] == list(range(10)), "each PR in order"


def test_every_pr_keeps_a_finding_standing_and_stays_under_the_reply_limit() -> None:
    script = draw(28, 50, 10)
    kinds = {e.kind for pr in script.prs for e in pr.events}
    assert kinds == set(Kind), "every kind of event is exercised"
    for pr in script.prs:
        fixed: set[int] = set()
        for event in pr.events:
            if event.kind == Kind.push_fix:
                assert event.findings and not fixed & set(event.findings)
                fixed |= set(event.findings)
            if event.kind == Kind.redeliver:
                assert event.again is not None and event.again < event.index
            if event.kind == Kind.poll_again:
                assert any(e.kind in PUSHES for e in pr.events[: event.index])
        assert len(fixed) < pr.findings, "a push fixes some findings and leaves others"
        assert sum(e.kind in REPLIES for e in pr.events) <= 9
        assert expected_events(pr) == 1 + sum(e.kind in REPLIES | PUSHES for e in pr.events)


def test_three_worker_kills_and_one_server_kill_fall_inside_the_run() -> None:
    script = draw(28, 50, 10)
    points = [*script.worker_kills, script.server_kill]
    assert len(script.worker_kills) == 3 and len(set(points)) == 4
    assert all(0 < p < len(script.order) for p in points if p is not None)


def test_the_cited_line_is_where_the_finding_points_and_a_fix_rewrites_only_it() -> None:
    before, after = ops_file(3, set()).split("\n"), ops_file(3, {1}).split("\n")
    for finding in range(3):
        assert f"# ratio {finding}" in before[cited_line(3, finding) - 1]
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [
        cited_line(3, 1) - 1
    ]


def test_a_model_request_is_traced_to_its_reply_by_the_nonce_opening_the_reply() -> None:
    script = draw(3, 2, 10)
    event = next(e for pr in script.prs for e in pr.events if e.kind in REPLIES)
    message = (
        '<thread>\n<comment author="alice">\nbench-reply p000 e00: earlier\n</comment>\n'
        f'</thread>\n\n<reply author="alice">\n{event.nonce}: Why is this a bug?\n</reply>'
    )
    assert _nonce_of({"messages": [{"role": "user", "content": message}]}) == event.nonce
