"""The doc sync set is committed: the bench reads it back as written, and a redraw says how
it differs from the committed one (above all a pair that changed halves)."""

from __future__ import annotations

from pathlib import Path

from bench.docsync.eval_set import DocPair, drift, load_set, write_set
from bench.eval_sets import Half
from bench.impact.pairs import PythonPair


def _pair(label: str, half: Half) -> DocPair:
    package, versions = label.split(" ")
    base, head = versions.split("→")
    return DocPair(PythonPair(package, base, head, package, "."), half, frozenset(), 0)


COMMITTED = [
    _pair("pymongo 3.13.0→4.0", "tune"),
    _pair("tox 3.28.0→4.0.0", "held_out"),
    _pair("pathspec 0.12.1→1.0.0", "tune"),
]


def test_the_same_draw_has_no_drift() -> None:
    assert drift(list(COMMITTED), COMMITTED) == []


def test_a_pair_that_changed_halves_an_added_and_a_missing_one_are_named() -> None:
    drawn = [COMMITTED[0], _pair("tox 3.28.0→4.0.0", "tune")]
    drawn.append(_pair("requests-toolbelt 0.10.1→1.0.0", "held_out"))
    assert sorted(drift(drawn, COMMITTED)) == [
        "pathspec 0.12.1→1.0.0: committed, not drawn here",
        "requests-toolbelt 0.10.1→1.0.0: drawn here (held_out), not in the committed set",
        "tox 3.28.0→4.0.0: committed in held_out, drawn here in tune",
    ]


def test_the_committed_set_reads_back_as_written(tmp_path: Path) -> None:
    drawn = [
        DocPair(
            PythonPair("pypdf", "4.3.1", "5.0.0", "pypdf", "src"),
            "tune",
            frozenset({"docs/a.md", "docs/b.rst"}),
            12,
        ),
        _pair("tox 3.28.0→4.0.0", "held_out"),
    ]
    refused = [{"package": "six", "base": "1.0", "head": "2.0", "reason": "ships 0 docs"}]
    manifest = tmp_path / "eval_set.json"
    write_set(drawn, refused, seed=29, count=2, path=manifest)
    assert load_set(manifest) == drawn
    assert '"reason": "ships 0 docs"' in manifest.read_text()
