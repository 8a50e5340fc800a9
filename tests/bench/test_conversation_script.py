"""The conversation bench's script (``bench.conversation.script``): what it promises the
bench's figures rest on, checked without running the bench."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bench.conversation.drive import ask_body, fix_body, fix_routes, fix_task_id, model_routes
from bench.conversation.figures import _nonce_of, expected_events
from bench.conversation.repos import TEST_COMMAND, cited_line, fix_edit, ops_file, ops_tests_file
from bench.conversation.script import ANSWERED, COMMANDS, PUSHES, REPLIES, Kind, draw
from prflow.conversation.commands import CommandName, parse_command
from prflow.refactor.plan import ID_PATTERN
from tests.support.refactor_repo import executor_key


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
        assert sum(e.kind in ANSWERED for e in pr.events) <= 9, "under 10 answers an hour"
        assert expected_events(pr) == 1 + sum(
            e.kind in REPLIES | PUSHES | COMMANDS for e in pr.events
        )


def test_a_pr_gets_at_most_one_fix_on_a_standing_finding_and_no_push_after_it() -> None:
    script = draw(28, 50, 10)
    fixes = [e for pr in script.prs for e in pr.events if e.kind == Kind.command_fix]
    assert 50 / 4 <= len(fixes) <= 50 / 1.5, "about one fix per two or three PRs"
    assert {e.breaks for e in fixes} == {True, False}, "fixes that validate and fixes that break"
    for pr in script.prs:
        at = [e.index for e in pr.events if e.kind == Kind.command_fix]
        assert len(at) <= 1
        if not at:
            continue
        fix = pr.events[at[0]]
        fixed = {f for e in pr.events if e.kind == Kind.push_fix for f in e.findings}
        assert fix.findings[0] not in fixed, "the fix's finding is still standing"
        after = {e.kind for e in pr.events[at[0] + 1 :]}
        assert not after & (PUSHES | {Kind.poll_again}), "nothing races the fix's push"


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


def test_commands_parse_as_the_product_parses_them_and_their_routes_are_their_own() -> None:
    script = draw(28, 50, 10)
    events = [e for pr in script.prs for e in pr.events]
    ask = next(e for e in events if e.kind == Kind.command_ask)
    fix = next(e for e in events if e.kind == Kind.command_fix)
    asked, fixing = parse_command(ask_body(ask)), parse_command(fix_body(fix))
    assert asked is not None and asked.name == CommandName.ask and ask.nonce in asked.text
    assert fixing is not None and (fixing.name, fixing.text) == (CommandName.fix, fix.nonce)
    assert re.match(ID_PATTERN, fix_task_id(fix))
    routes = model_routes(script)
    assert f'<reply author="alice">\n{ask_body(ask)}' in routes
    keys = list(fix_routes(fix))
    assert keys[-1] == f'<note author="requester">\n{fix.nonce}', "executors matched first"
    assert executor_key(fix_task_id(fix), 1) in keys
    message = f'<reply author="alice">\n{ask_body(ask)}\n</reply>'
    assert _nonce_of({"messages": [{"role": "user", "content": message}]}) == ask.nonce


def test_a_validating_fix_keeps_the_tests_green_and_a_breaking_one_fails_its_test(
    tmp_path: Path,
) -> None:
    def suite(fixed: set[int], edited: tuple[str, str] | None = None) -> int:
        ops = ops_file(3, fixed)
        if edited is not None:
            assert ops.count(edited[0]) == 1, "an exact-unique edit"
            ops = ops.replace(*edited)
        (tmp_path / "calc").mkdir(exist_ok=True)
        (tmp_path / "tests").mkdir(exist_ok=True)
        (tmp_path / "calc" / "__init__.py").write_text("")
        (tmp_path / "calc" / "ops.py").write_text(ops)
        (tmp_path / "tests" / "test_ops.py").write_text(ops_tests_file(3))
        command = [sys.executable, *TEST_COMMAND.split()[1:], "-p", "no:cacheprovider"]
        return subprocess.run(command, cwd=tmp_path, capture_output=True, check=False).returncode

    assert suite(set()) == 0 and suite({0, 2}) == 0, "green before and after a push's fix"
    assert suite(set(), fix_edit(1, breaks=False)) == 0
    assert suite(set(), fix_edit(1, breaks=True)) == 1
