"""Draw release pairs from a package list with a fixed seed, and split them in halves.

A *release line* is a major or a minor series (``2.x`` or ``2.3.x``); a pair
is the last release of one line and the first release of the next, i.e. what
an upgrade across that line boundary changes. The sampler shuffles the
package list with the seed, walks it, offers each package's recent pairs (in
seeded order) to the caller's ``eligible`` test, and keeps the first ones that
pass. Packages alternate between the *tuning* half and the *held-out* half in
the order they were drawn, so the two halves never share a package: what is
tuned on one half says nothing in advance about the other.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from packaging.version import Version

from bench.eval_sets.packages import Ecosystem, popular_packages
from bench.eval_sets.registry import DEFAULT_CACHE, RegistryError, Release, releases

LineKind = Literal["major", "minor"]
Half = Literal["tune", "held_out"]
HALVES: tuple[Half, Half] = ("tune", "held_out")


@dataclass(frozen=True)
class ReleasePair:
    """Two releases of one package across a line boundary; ``half`` is set by the sampler."""

    ecosystem: Ecosystem
    package: str
    base: str
    head: str
    half: Half = "tune"

    @property
    def label(self) -> str:
        return f"{self.package} {self.base}→{self.head}"


def _line(version: str, kind: LineKind) -> tuple[int, ...]:
    release = Version(version).release
    padded = (*release, 0, 0)
    return padded[:1] if kind == "major" else padded[:2]


def release_pairs(
    package: str,
    ecosystem: Ecosystem,
    *,
    kind: LineKind = "minor",
    sdist_only: bool | None = None,
    cache: Path = DEFAULT_CACHE,
) -> list[ReleasePair]:
    """Every boundary pair of ``package``'s release lines, oldest first.

    ``sdist_only`` (default: on for PyPI) skips releases published without a
    source archive.
    """
    need_sdist = ecosystem == "pypi" if sdist_only is None else sdist_only
    found: list[Release] = releases(ecosystem, package, cache)
    if need_sdist:
        found = [r for r in found if r.has_sdist]
    lines: dict[tuple[int, ...], list[Release]] = {}
    for release in found:
        lines.setdefault(_line(release.version, kind), []).append(release)
    ordered = [lines[key] for key in sorted(lines)]
    return [
        ReleasePair(ecosystem, package, older[-1].version, newer[0].version)
        for older, newer in itertools.pairwise(ordered)
    ]


def _candidates(
    ecosystem: Ecosystem,
    package: str,
    rng: random.Random,
    kind: LineKind,
    recent: int,
    cache: Path,
) -> Iterator[ReleasePair]:
    try:
        pairs = release_pairs(package, ecosystem, kind=kind, cache=cache)
    except RegistryError:
        return
    window = pairs[-recent:]
    rng.shuffle(window)
    yield from window


def sample_pairs(
    ecosystem: Ecosystem,
    *,
    seed: int,
    count: int,
    eligible: Callable[[ReleasePair], bool] | None = None,
    kind: LineKind = "minor",
    per_package: int = 1,
    recent: int = 6,
    packages: Sequence[str] | None = None,
    cache: Path = DEFAULT_CACHE,
) -> list[ReleasePair]:
    """``count`` pairs drawn with ``seed``, at most ``per_package`` per package.

    Only a package's ``recent`` latest boundaries are offered (what users upgrade
    across today). ``eligible`` is asked lazily, in draw order, so an expensive
    test (a download, a build) runs only for the candidates it decides. Each
    pair's ``half`` alternates by package in draw order, tuning half first.
    """
    rng = random.Random(f"{seed}:{ecosystem}:{kind}")
    names = list(packages) if packages is not None else popular_packages(ecosystem)
    rng.shuffle(names)
    chosen: list[ReleasePair] = []
    accepted_packages = 0
    for package in names:
        if len(chosen) >= count:
            break
        taken: list[ReleasePair] = []
        for pair in _candidates(ecosystem, package, rng, kind, recent, cache):
            if len(taken) >= per_package or len(chosen) + len(taken) >= count:
                break
            if eligible is None or eligible(pair):
                taken.append(pair)
        if taken:
            half = HALVES[accepted_packages % 2]
            chosen += [replace(pair, half=half) for pair in taken]
            accepted_packages += 1
    return chosen


def by_half(pairs: Sequence[ReleasePair]) -> dict[Half, list[ReleasePair]]:
    """The pairs of each half, in their drawn order."""
    return {half: [p for p in pairs if p.half == half] for half in HALVES}
