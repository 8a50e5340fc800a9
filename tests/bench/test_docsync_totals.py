"""The doc sync bench's totals: the must-update bucket's own recall and precision."""

from __future__ import annotations

import pytest

from bench.docsync.__main__ import _ORDINALS, PairScore, print_totals, subsets
from bench.docsync.eval_set import EXTRA_DRAWS, DocPair
from bench.impact.pairs import PythonPair


def _score(flagged: set[str], must_update: set[str], truth: set[str]) -> PairScore:
    item = DocPair(PythonPair("acme", "1", "2", "acme"), "held_out", frozenset(truth), 3)
    return PairScore(
        item=item,
        docs=10,
        flagged=flagged,
        use_truth=truth,
        truth=truth,
        old_truth=truth,
        evidence_changed=0,
        extras_evidence_changed=0,
        extras_stale=0,
        docsync_seconds=None,
        impact_seconds=None,
        must_update=must_update,
    )


def test_the_must_update_bucket_is_scored_apart_from_review(
    capsys: pytest.CaptureFixture[str],
) -> None:
    scores = [
        _score({"a.rst", "b.rst", "c.rst"}, {"a.rst"}, {"a.rst", "b.rst", "d.rst"}),
        _score({"e.rst"}, {"e.rst"}, set()),
    ]
    print_totals("held-out half", scores)
    out = capsys.readouterr().out
    assert "held-out half, use truth (headline): recall 2/3 = 0.67" in out
    assert "precision 2/4 = 0.50" in out
    assert (
        "the must-update bucket alone (2 of the 4 flagged): recall 1/3 = 0.33, precision 1/2 = 0.50"
    ) in out


def test_every_extra_held_out_draw_is_printed_alone() -> None:
    titles = [title for _half, title, _scores in subsets([])]
    drawn = [key for key in EXTRA_DRAWS if key.startswith("extra_held_out")]
    assert titles[3:] == [
        "held-out half, the extra draw alone",
        *(f"held-out half, the {o} extra draw alone" for o in _ORDINALS[2 : len(drawn) + 1]),
    ]
