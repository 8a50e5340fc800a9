"""The bench says when this machine's draw is not the set the published figures came from."""

from __future__ import annotations

from bench.docsync.eval_set import PUBLISHED, DocPair, drift
from bench.eval_sets import Half
from bench.impact.pairs import PythonPair


def _pair(label: str, half: Half) -> DocPair:
    package, versions = label.split(" ")
    base, head = versions.split("→")
    return DocPair(PythonPair(package, base, head, package, "."), half, frozenset(), 0)


def test_the_published_draw_has_no_drift() -> None:
    drawn = [_pair(label, half) for half, labels in PUBLISHED.items() for label in labels]
    assert drift(drawn) == []


def test_a_pair_that_changed_halves_an_added_and_a_missing_one_are_named() -> None:
    drawn = [_pair(label, half) for half, labels in PUBLISHED.items() for label in labels]
    drawn = [p for p in drawn if p.pair.package not in ("tox", "pathspec")]
    drawn += [_pair("tox 3.28.0→4.0.0", "tune"), _pair("requests-toolbelt 0.10.1→1.0.0", "tune")]
    assert sorted(drift(drawn)) == [
        "pathspec 0.12.1→1.0.0: published, not drawn here",
        "requests-toolbelt 0.10.1→1.0.0: drawn here (tune), not in the published set",
        "tox 3.28.0→4.0.0: published in held_out, drawn here in tune",
    ]
