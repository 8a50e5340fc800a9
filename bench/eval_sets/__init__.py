"""Evaluation sets drawn by a script: widely used packages, release pairs, two halves.

Benchmarks that report accuracy build their sets here instead of naming pairs
by hand: :func:`sample_pairs` draws release pairs from
:func:`popular_packages` with a fixed seed, asks the benchmark's own
``eligible`` test of each candidate, and puts every drawn package in the
tuning half or the held-out half. Report the two halves apart; tune on the
first only. ``python -m bench.eval_sets pypi --seed 7 --count 10`` prints a
draw without an eligibility test.
"""

from bench.eval_sets.packages import Ecosystem, popular_packages
from bench.eval_sets.registry import CUTOFF, RegistryError, Release, releases
from bench.eval_sets.sampling import (
    HALVES,
    Half,
    LineKind,
    ReleasePair,
    by_half,
    release_pairs,
    sample_pairs,
)

__all__ = [
    "CUTOFF",
    "HALVES",
    "Ecosystem",
    "Half",
    "LineKind",
    "RegistryError",
    "Release",
    "ReleasePair",
    "by_half",
    "popular_packages",
    "release_pairs",
    "releases",
    "sample_pairs",
]
