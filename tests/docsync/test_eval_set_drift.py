"""The doc sync set is committed: the bench reads it back as written, and a redraw says how
it differs from the committed one (above all a pair that changed halves)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.docsync.eval_set import (
    EXTRA_DRAWS,
    DocPair,
    draw_key,
    draw_seed,
    drift,
    extra_held_out_labels,
    load_set,
    looked_at_packages,
    packaging_only,
    pair_record,
    write_set,
)
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


def test_a_head_that_keeps_too_few_of_the_base_docs_measures_packaging() -> None:
    """tox 4.0.0's sdist ships none of 3.28.0's docs: every doc reads as "removed upstream"
    and the "PR" deletes them, so the pair says nothing about doc sync and is not eligible;
    a head that keeps its docs (edited or not) is."""
    base = {"README.md": "r", "docs/a.rst": "a", "docs/b.rst": "b", "docs/c.rst": "c"}
    assert packaging_only(base, {"README.md": "r"}) == "the head keeps 1 of the base's 4 docs"
    assert packaging_only(base, {}) == "the head keeps 0 of the base's 4 docs"
    edited = {"README.md": "r2", "docs/a.rst": "a2", "docs/b.rst": "b", "docs/new.rst": "n"}
    assert packaging_only(base, edited) is None


def test_retired_pairs_leave_the_set_and_extra_tuning_pairs_join_it(tmp_path: Path) -> None:
    """The extra tuning draw and the retirement of a packaging-only pair are kept in the
    committed file beside the draw; the set read back drops the retired pair, keeps every
    held-out pair as drawn and adds the extra pairs to the tuning half."""
    manifest = tmp_path / "eval_set.json"
    write_set(list(COMMITTED), [], seed=29, count=3, path=manifest)
    document = json.loads(manifest.read_text())
    document["retired"] = [
        {"package": "pathspec", "base": "0.12.1", "head": "1.0.0", "reason": "keeps 0"}
    ]
    extra = DocPair(PythonPair("rich", "13.9.4", "14.0.0", "rich", "."), "tune", frozenset(), 3)
    document["extra_tuning"] = {"pairs": [pair_record(extra)], "ineligible": []}
    manifest.write_text(json.dumps(document))
    assert load_set(manifest) == [COMMITTED[0], COMMITTED[1], extra]


def test_a_fresh_held_out_draw_avoids_every_package_looked_at_and_joins_held_out(
    tmp_path: Path,
) -> None:
    """The extra held-out draw must not meet a package any earlier draw saw: neither the
    committed draw's pairs and refusals nor the extra tuning draw's; its pairs read back in
    the held-out half, after the tuning ones, and the bench can tell them apart."""
    manifest = tmp_path / "eval_set.json"
    refused = [{"package": "six", "base": "1.0", "head": "2.0", "reason": "ships 0 docs"}]
    write_set(list(COMMITTED), refused, seed=29, count=3, path=manifest)
    document = json.loads(manifest.read_text())
    tuning = DocPair(PythonPair("rich", "13.9.4", "14.0.0", "rich", "."), "tune", frozenset(), 3)
    document["extra_tuning"] = {
        "pairs": [pair_record(tuning)],
        "ineligible": [{"package": "attrs", "base": "1", "head": "2", "reason": "no docs"}],
    }
    assert looked_at_packages(document) == {"pymongo", "tox", "pathspec", "six", "rich", "attrs"}
    fresh = DocPair(PythonPair("lxml", "4.9.4", "5.0.0", "lxml", "src"), "held_out", frozenset(), 2)
    document["extra_held_out"] = {"seed": 229, "pairs": [pair_record(fresh)], "ineligible": []}
    manifest.write_text(json.dumps(document))
    assert load_set(manifest) == [*COMMITTED, tuning, fresh]
    assert extra_held_out_labels(manifest) == {"lxml 4.9.4→5.0.0"}
    assert extra_held_out_labels(tmp_path / "missing.json") == set()


def test_a_second_round_of_draws_avoids_every_earlier_draw_and_joins_its_half(
    tmp_path: Path,
) -> None:
    """Round 2 draws tuning pairs with seed + 300 and held-out pairs with seed + 400, each
    over the packages no earlier draw looked at (the committed draw, the first extra tuning
    and held-out draws, and for the held-out one the second tuning draw too); their pairs
    read back in their halves, after the earlier draws', and each draw's labels apart."""
    assert [draw_key("tune", 2), draw_key("held_out", 2)] == list(EXTRA_DRAWS[2:4])
    assert draw_key("held_out", 3) == EXTRA_DRAWS[4]
    assert [draw_seed("tune"), draw_seed("held_out")] == [129, 229]
    assert [draw_seed("tune", 2), draw_seed("held_out", 2)] == [329, 429]
    assert draw_seed("held_out", 3) == 629
    manifest = tmp_path / "eval_set.json"
    write_set(list(COMMITTED), [], seed=29, count=3, path=manifest)
    document = json.loads(manifest.read_text())

    def pair(package: str, half: Half) -> DocPair:
        return DocPair(PythonPair(package, "1.0", "2.0", package, "."), half, frozenset(), 1)

    def refused(package: str) -> dict[str, str]:
        return {"package": package, "base": "1", "head": "2", "reason": "ships 0 docs"}

    draws = {
        "extra_tuning": (pair("rich", "tune"), "attrs"),
        "extra_held_out": (pair("lxml", "held_out"), "kombu"),
        "extra_tuning_2": (pair("celery", "tune"), "zipp"),
        "extra_held_out_2": (pair("anyio2", "held_out"), "yarl"),
    }
    for key, (drawn, seen) in draws.items():
        document[key] = {"pairs": [pair_record(drawn)], "ineligible": [refused(seen)]}
    committed = {"pymongo", "tox", "pathspec"}
    assert looked_at_packages(document, "extra_tuning_2") == committed | {
        "rich",
        "attrs",
        "lxml",
        "kombu",
    }
    assert looked_at_packages(document, "extra_held_out_2") == committed | {
        "rich",
        "attrs",
        "lxml",
        "kombu",
        "celery",
        "zipp",
    }
    manifest.write_text(json.dumps(document))
    assert load_set(manifest) == [*COMMITTED, *(drawn for drawn, _seen in draws.values())]
    assert extra_held_out_labels(manifest) == {"lxml 1.0→2.0"}
    assert extra_held_out_labels(manifest, "extra_held_out_2") == {"anyio2 1.0→2.0"}
