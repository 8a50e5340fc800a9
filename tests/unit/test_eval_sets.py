"""The evaluation-set sampler: release lines from registry documents, seeded draws, halves."""

from __future__ import annotations

import json
from pathlib import Path

from bench.eval_sets import by_half, release_pairs, sample_pairs


def _pypi_document(versions: dict[str, dict[str, object]]) -> dict[str, object]:
    """A document shaped like PyPI's ``/pypi/<name>/json``: one file per release."""
    releases: dict[str, list[dict[str, object]]] = {}
    for version, extra in versions.items():
        releases[version] = [
            {
                "packagetype": extra.get("packagetype", "sdist"),
                "upload_time_iso_8601": extra.get("uploaded", "2024-01-01T00:00:00Z"),
                "yanked": extra.get("yanked", False),
            }
        ]
    return {"info": {}, "releases": releases}


def _cache(tmp_path: Path, documents: dict[str, dict[str, object]]) -> Path:
    for name, document in documents.items():
        path = tmp_path / "pypi" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document))
    return tmp_path


def test_pairs_cross_line_boundaries_skipping_prereleases_yanked_and_late(tmp_path: Path) -> None:
    cache = _cache(
        tmp_path,
        {
            "lib": _pypi_document(
                {
                    "1.0.0": {},
                    "1.0.1": {},
                    "1.1.0rc1": {},
                    "1.1.0": {"yanked": True},
                    "1.1.1": {},
                    "1.2.0": {"packagetype": "bdist_wheel"},
                    "2.0.0": {},
                    "2.1.0": {"uploaded": "2030-01-01T00:00:00Z"},
                }
            )
        },
    )
    minor = release_pairs("lib", "pypi", kind="minor", cache=cache)
    assert [(p.base, p.head) for p in minor] == [("1.0.1", "1.1.1"), ("1.1.1", "2.0.0")]
    major = release_pairs("lib", "pypi", kind="major", cache=cache)
    assert [(p.base, p.head) for p in major] == [("1.1.1", "2.0.0")]


def test_a_seed_draws_the_same_pairs_and_halves_never_share_a_package(tmp_path: Path) -> None:
    names = [f"pkg{i}" for i in range(12)]
    cache = _cache(
        tmp_path,
        {name: _pypi_document({"1.0.0": {}, "1.1.0": {}, "1.2.0": {}}) for name in names},
    )
    refused = {"pkg3", "pkg7"}

    def draw(seed: int) -> list[tuple[str, str, str, str]]:
        pairs = sample_pairs(
            "pypi",
            seed=seed,
            count=8,
            packages=names,
            eligible=lambda pair: pair.package not in refused,
            cache=cache,
        )
        return [(p.package, p.base, p.head, p.half) for p in pairs]

    first = draw(11)
    assert first == draw(11)
    assert first != draw(12)
    assert len(first) == 8
    assert not refused & {package for package, *_ in first}
    halves = by_half(
        sample_pairs("pypi", seed=11, count=8, packages=names, per_package=2, cache=cache)
    )
    assert len(halves["tune"]) == len(halves["held_out"]) == 4
    tuned = {p.package for p in halves["tune"]}
    assert tuned.isdisjoint(p.package for p in halves["held_out"])


def test_an_extra_tuning_draw_is_all_tuning_and_never_takes_a_drawn_package(
    tmp_path: Path,
) -> None:
    from bench.impact.eval_set import extra_tuning_pairs

    names = [f"npm{i}" for i in range(10)]
    for name in names:
        path = tmp_path / "npm" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        versions = ("1.0.0", "1.2.0", "2.0.0", "3.0.0")
        path.write_text(
            json.dumps(
                {
                    "versions": {v: {} for v in versions},
                    "time": {v: "2024-01-01T00:00:00Z" for v in versions},
                }
            )
        )
    taken = {"npm0", "npm1", "npm2"}

    def draw() -> list[tuple[str, str, str, str]]:
        pairs = extra_tuning_pairs(
            taken, 29, 4, eligible=lambda pair: True, packages=names, cache=tmp_path
        )
        return [(p.package, p.base, p.head, p.half) for p in pairs]

    first = draw()
    assert first == draw()
    assert len(first) == 4
    assert {half for *_, half in first} == {"tune"}
    assert taken.isdisjoint(package for package, *_ in first)


def test_an_extra_pypi_tuning_draw_takes_minor_lines_of_untaken_packages_only(
    tmp_path: Path,
) -> None:
    from bench.impact.eval_set import EXTRA_SEED_OFFSET, extra_tuning_pairs

    names = [f"py{i}" for i in range(8)]
    versions = ("1.0.0", "1.1.0", "1.1.3", "1.2.0", "2.0.0")
    cache = _cache(tmp_path, {name: _pypi_document({v: {} for v in versions}) for name in names})
    taken = {"py0", "py1"}

    def draw(seed_offset: int) -> list[tuple[str, str, str, str]]:
        pairs = extra_tuning_pairs(
            taken,
            29,
            3,
            eligible=lambda pair: True,
            packages=names,
            cache=cache,
            ecosystem="pypi",
            offset=EXTRA_SEED_OFFSET + seed_offset,
        )
        return [(p.package, p.base, p.head, p.half) for p in pairs]

    first = draw(0)
    assert first == draw(0)
    assert len(first) == 3
    assert {half for *_, half in first} == {"tune"}
    assert taken.isdisjoint(package for package, *_ in first)
    # minor lines: 1.0.x -> 1.1.x -> 1.2.x -> 2.0.x, a line's last release to the next's first
    pairs = {(base, head) for _, base, head, _ in first}
    assert pairs <= {("1.0.0", "1.1.0"), ("1.1.3", "1.2.0"), ("1.2.0", "2.0.0")}
    # the stratum's own seed (offset 1) orders the packages another way
    assert [p for p, *_ in draw(1)] != [p for p, *_ in first]
