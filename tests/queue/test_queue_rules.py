"""The queue's domain rules without Temporal: signatures, event mapping, state, config, gate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from prflow.queue import rules
from prflow.queue.events import (
    EventKind,
    Ignored,
    PayloadError,
    PrEvent,
    command_jobs,
    map_delivery,
)
from prflow.queue.fairness import MAX_KEY_BYTES, fairness_key
from prflow.queue.gate import GateState, SlotRequest
from prflow.queue.poll import parse_every
from prflow.queue.repo_config import parse_repo_config
from prflow.queue.signature import SignatureError, sign, verify_signature
from prflow.queue.state import QueueNames, QueueState
from tests.support.fake_github import FakeGitHub
from tests.support.webhook_payloads import comment_delivery, pull_request_delivery, schema_problems

PR = PullRequestRef(owner="acme", repo="api", number=7)
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def fresh_state() -> QueueState:
    return QueueState(pr=PR, queues=QueueNames(main="q", llm="q-llm", github="q-github"))


def head(delivery: str, sha: str, at: datetime = T0) -> PrEvent:
    return PrEvent(delivery_id=delivery, kind=EventKind.head, pr=PR, head_sha=sha, updated_at=at)


# ---------------------------------------------------------------- signature


def test_only_githubs_signature_of_the_exact_body_passes() -> None:
    body = b'{"action":"opened"}'
    verify_signature("s3cret", body, sign("s3cret", body))
    for header, problem in [
        (None, "missing"),
        ("sha1=abc", "must start with"),
        (sign("other", body), "does not match"),
        (sign("s3cret", body + b" "), "does not match"),
    ]:
        with pytest.raises(SignatureError, match=problem):
            verify_signature("s3cret", body, header)
    with pytest.raises(SignatureError, match="no webhook secret"):
        verify_signature("", body, sign("", body))


# ---------------------------------------------------------------- event mapping


@pytest.fixture
def github() -> Any:
    with FakeGitHub() as fake:
        fake.add_user("octo", type="Organization")
        fake.add_pull_request("octo", "svc", 3, head_sha="a" * 40)
        yield fake


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened", "ready_for_review"])
def test_code_changing_pull_request_actions_become_head_events(
    github: FakeGitHub, action: str
) -> None:
    delivery = pull_request_delivery(github, "octo", "svc", 3, action)
    assert schema_problems(delivery) == []
    event = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(event, PrEvent)
    assert (event.kind, event.head_sha, event.pr.slug) == (EventKind.head, "a" * 40, "octo/svc#3")
    assert event.delivery_id == delivery.delivery_id


def test_closed_and_merged_prs_become_close_events(github: FakeGitHub) -> None:
    github.set_pull_state("octo", "svc", 3, state="closed", merged=True)
    delivery = pull_request_delivery(github, "octo", "svc", 3, "closed")
    event = map_delivery(delivery.event, delivery.delivery_id, delivery.payload)
    assert isinstance(event, PrEvent) and event.kind is EventKind.closed
    assert event.source == "pull_request.closed (merged)"


def test_drafts_labels_and_other_events_are_ignored_with_a_reason(github: FakeGitHub) -> None:
    labeled = pull_request_delivery(github, "octo", "svc", 3, "labeled")
    github.set_pull_state("octo", "svc", 3, draft=True)
    draft = pull_request_delivery(github, "octo", "svc", 3, "opened")
    answers = [
        map_delivery(labeled.event, "1", labeled.payload),
        map_delivery(draft.event, "2", draft.payload),
        map_delivery("push", "3", {"ref": "refs/heads/main"}),
        map_delivery("ping", "4", {"zen": "Keep it logically awesome."}),
    ]
    assert all(isinstance(answer, Ignored) for answer in answers)
    reasons = [answer.reason for answer in answers if isinstance(answer, Ignored)]
    assert "does not change the code" in reasons[0]
    assert "draft" in reasons[1]
    assert "push events are not used" in reasons[2]


def test_comment_commands_need_a_command_line_and_a_trusted_author(github: FakeGitHub) -> None:
    asked = comment_delivery(github, "octo", "svc", 3, "Please:\n/prflow review\n/prflow impact\n")
    assert schema_problems(asked) == []
    event = map_delivery(asked.event, asked.delivery_id, asked.payload)
    assert isinstance(event, PrEvent)
    assert (event.kind, event.jobs) == (EventKind.command, ["review", "impact"])
    stranger = comment_delivery(github, "octo", "svc", 3, "/prflow review", association="NONE")
    assert isinstance(map_delivery(stranger.event, "x", stranger.payload), Ignored)
    assert command_jobs("see /prflow review in the docs") == []
    assert command_jobs("/prflow impact\n/prflow impact") == ["impact"]


def test_a_body_that_is_not_the_event_names_the_bad_field() -> None:
    with pytest.raises(PayloadError, match=r"pull_request payload: pull_request\.number"):
        map_delivery(
            "pull_request", "1", {"action": "opened", "pull_request": {}, "repository": {}}
        )


# ---------------------------------------------------------------- state rules


def test_redelivery_is_a_duplicate_and_a_late_delivery_is_stale() -> None:
    state = fresh_state()
    assert rules.absorb(state, head("d1", "a" * 40, T0)) is rules.Absorbed.new_head
    assert rules.absorb(state, head("d1", "a" * 40, T0)) is rules.Absorbed.duplicate
    assert (
        rules.absorb(state, head("d2", "b" * 40, T0 + timedelta(minutes=1)))
        is rules.Absorbed.new_head
    )
    assert rules.absorb(state, head("d3", "a" * 40, T0)) is rules.Absorbed.stale
    assert state.head_sha == "b" * 40
    assert (
        rules.absorb(state, head("d4", "b" * 40, T0 + timedelta(minutes=2)))
        is rules.Absorbed.same_head
    )


def test_the_delivery_log_stays_bounded() -> None:
    state = fresh_state()
    for n in range(1000):
        rules.absorb(state, head(f"d{n}", "a" * 40))
    assert len(state.deliveries) == 256
    assert "d999" in state.deliveries and "d0" not in state.deliveries


def test_work_supersede_and_the_last_reviewed_head() -> None:
    state = fresh_state()
    assert rules.has_work(state), "an unknown head must be planned"
    rules.absorb(state, head("d1", "a" * 40))
    assert rules.jobs_for_head(state, "a" * 40, ["impact"]) == ["impact"]
    rules.finish_head(state, "a" * 40, ["impact"])
    assert not rules.has_work(state)
    rules.absorb(state, head("d2", "b" * 40, T0 + timedelta(seconds=1)))
    assert rules.superseded(state, "a" * 40) and not rules.superseded(state, "b" * 40)
    command = PrEvent(delivery_id="c1", kind=EventKind.command, pr=PR, jobs=["review"])
    rules.absorb(state, command)
    assert rules.jobs_for_head(state, "a" * 40, ["impact"]) == ["review"], "reviewed: only asks"
    assert rules.jobs_for_head(state, "b" * 40, ["impact"]) == ["impact", "review"]
    closed = PrEvent(delivery_id="x", kind=EventKind.closed, pr=PR)
    assert rules.absorb(state, closed) is rules.Absorbed.closed
    assert not rules.has_work(state) and rules.superseded(state, "b" * 40)


# ---------------------------------------------------------------- .prflow.toml


def test_repo_config_defaults_and_ignored_paths() -> None:
    assert parse_repo_config(None, ["impact"]).jobs_to_run(["impact"]) == ["impact"]
    config = parse_repo_config('jobs = []\nignore_paths = ["docs/**", "*.md"]\n', ["impact"])
    assert config.jobs_to_run(["impact"]) == []
    assert config.only_ignored(["docs/a/b.rst", "README.md"])
    assert not config.only_ignored(["docs/a.rst", "src/app.py"])
    assert not config.only_ignored([])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("jobs = [", "is not valid TOML"),
        ("job = ['impact']", "unknown key 'job'; the keys are: enabled, jobs"),
        ("budget_usd = -1", "budget_usd = -1 is not valid: input should be greater than"),
        ("risk_threshold = 'high'", "risk_threshold = 'high' is not valid"),
        ("jobs = ['revew']", "jobs names 'revew', which this deployment does not run"),
    ],
)
def test_a_bad_repo_config_is_one_line_that_names_the_key(text: str, message: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_repo_config(text, ["impact", "review"])
    assert message in caught.value.message
    assert "\n" not in caught.value.message


# ---------------------------------------------------------------- org gate


def ask(holder: str, repo: str, capacity: int = 2) -> SlotRequest:
    return SlotRequest(org="acme", repo=repo, holder=holder, capacity=capacity)


def test_the_gate_caps_running_prs_and_gives_turns_round_the_repositories() -> None:
    gate = GateState(org="acme", capacity=2)
    for n in range(5):
        gate.request(ask(f"big#{n}", "acme/big"))
    gate.request(ask("small#1", "acme/small"))
    gate.request(ask("small#1", "acme/small"))  # asking twice changes nothing
    assert gate.grant(T0) == ["big#0", "small#1"]
    assert gate.grant(T0) == [], "the cap holds"
    gate.release("small#1")
    gate.request(ask("small#2", "acme/small"))
    gate.release("big#0")
    # big has nobody running, small has nobody running; big was served longest ago.
    assert gate.grant(T0) == ["big#1", "small#2"]


def test_a_holder_that_never_releases_loses_its_slot_after_the_lease() -> None:
    gate = GateState(org="acme", capacity=1)
    gate.request(ask("gone", "acme/a", capacity=1))
    gate.request(ask("next", "acme/b", capacity=1))
    assert gate.grant(T0) == ["gone"]
    assert gate.expire(T0 + timedelta(hours=1)) == []
    assert gate.expire(T0 + timedelta(hours=7)) == ["gone"]
    assert gate.grant(T0 + timedelta(hours=7)) == ["next"]


# ---------------------------------------------------------------- small parsers


def test_poll_intervals_and_fairness_keys() -> None:
    assert parse_every("5m") == timedelta(minutes=5)
    for bad in ("often", "30s", "5 parsecs"):
        with pytest.raises(UserError):
            parse_every(bad)
    assert fairness_key("acme/api") == "acme/api"
    long = "acme/" + "x" * 100
    assert len(fairness_key(long).encode()) <= MAX_KEY_BYTES
    assert fairness_key(long) != fairness_key(long + "y")
