"""Money a phase leaves unspent flows to later phases, and the run never spends more than
the sum of its phases' caps whatever the agents spend."""

from __future__ import annotations

import random

import pytest

from prflow.review.budgets import UnspentPool


def test_an_early_phase_unspent_money_is_granted_to_the_next_agent() -> None:
    pool = UnspentPool()
    assert pool.grant("intake", 0.05, 1.0, within_phase=False) == 0.0
    pool.settle("intake", 0.01)
    assert pool.usd == pytest.approx(0.04)
    assert pool.grant("reviewers:a", 0.60, 0.5, within_phase=False) == pytest.approx(0.02)
    assert pool.grant("reviewers:b", 0.60, 1.0, within_phase=False) == pytest.approx(0.02)
    assert pool.usd == 0.0


def test_a_within_phase_agent_returns_only_the_unspent_part_of_its_grant() -> None:
    pool = UnspentPool(usd=0.10)
    extra = pool.grant("adversary:1", 0.30, 1.0, within_phase=True)
    pool.settle("adversary:1", 0.35)  # its own 0.30, then 0.05 of the grant
    assert extra == pytest.approx(0.10)
    assert pool.usd == pytest.approx(0.05)


@pytest.mark.parametrize("seed", range(20))
def test_whatever_agents_spend_the_run_stays_within_its_phases_caps(seed: int) -> None:
    rng = random.Random(seed)
    pool = UnspentPool()
    caps_total = 0.0
    spent_total = 0.0
    for phase in range(6):
        cap = rng.uniform(0.05, 1.0)
        caps_total += cap
        within = rng.random() < 0.5
        phase_spent = 0.0
        agents = rng.randint(1, 4)
        for number in range(agents):
            base = cap - phase_spent if within else cap / agents
            name = f"p{phase}:{number}"
            extra = pool.grant(name, base, 1.0 if within else 1 / agents, within_phase=within)
            spent = rng.uniform(0, base + extra)  # an agent never passes its own cap
            phase_spent += spent
            spent_total += spent
            pool.settle(name, spent)
        assert spent_total <= caps_total + 1e-9
        assert pool.usd >= 0
