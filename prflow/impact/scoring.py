"""The risk score of a change: six weighted factors, computed in code so it is reproducible.

Arithmetic is exact (fractions) and halves round up, so a score never flips
between runs or platforms because of floating-point artefacts; a CI gate at
``--threshold N`` therefore behaves the same everywhere.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from prflow.analysis.categories import CONFIG_TIER_LABEL
from prflow.analysis.findings import BreakingChange, ConfigChange, CoverageSummary
from prflow.impact.models import RiskAssessment, RiskFactor, RiskLevel
from prflow.severity import Severity

BREAKING_SCORE: dict[Severity, int] = {Severity.high: 100, Severity.medium: 60, Severity.low: 30}

# (upper bound of changed lines inclusive, score); above the last bound scores 100.
DIFF_SIZE_BANDS: tuple[tuple[int, int], ...] = ((99, 0), (500, 50), (1000, 80))

LEVEL_CEILINGS: tuple[tuple[int, RiskLevel], ...] = (
    (25, RiskLevel.low),
    (50, RiskLevel.medium),
    (75, RiskLevel.high),
)


@dataclass(frozen=True)
class _Factor:
    name: str
    weight_percent: int
    score: Fraction
    details: str


def assess_risk(
    *,
    breaking: list[BreakingChange],
    coverage: CoverageSummary,
    total_changed_lines: int,
    stale_docs: int,
    config: list[ConfigChange],
    direct_importers: int,
    extra_breaking_severities: Sequence[Severity] = (),
) -> RiskAssessment:
    """Score a change 0-100 and name its level; ``extra_breaking_severities`` come from
    model findings classified as breaking, which count like the static ones."""
    factors = [
        _breaking_factor(breaking, extra_breaking_severities),
        _untested_factor(coverage),
        _diff_size_factor(total_changed_lines),
        _stale_docs_factor(stale_docs),
        _config_factor(config),
        _breadth_factor(direct_importers),
    ]
    weighted = sum((Fraction(f.weight_percent, 100) * f.score for f in factors), Fraction(0))
    score = min(100, _round_half_up(weighted))
    return RiskAssessment(
        score=score,
        level=risk_level(score),
        factors=[
            RiskFactor(
                name=f.name,
                score=float(f.score),
                weight=f.weight_percent / 100,
                details=f.details,
            )
            for f in factors
        ],
    )


def risk_level(score: int) -> RiskLevel:
    """low ≤25, medium ≤50, high ≤75, critical above."""
    for ceiling, level in LEVEL_CEILINGS:
        if score <= ceiling:
            return level
    return RiskLevel.critical


def diff_size_score(total_changed_lines: int) -> int:
    for ceiling, score in DIFF_SIZE_BANDS:
        if total_changed_lines <= ceiling:
            return score
    return 100


def _round_half_up(value: Fraction) -> int:
    return math.floor(value + Fraction(1, 2))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _breaking_factor(
    breaking: list[BreakingChange], extra_severities: Sequence[Severity]
) -> _Factor:
    severities = [change.severity for change in breaking] + list(extra_severities)
    if not severities:
        return _Factor("Breaking changes", 30, Fraction(0), "No breaking changes detected")
    counts = Counter(severities)
    worst = max(BREAKING_SCORE[severity] for severity in severities)
    by_severity = ", ".join(
        f"{counts[severity]} {severity.value}" for severity in Severity if counts[severity]
    )
    details = f"{_plural(len(severities), 'breaking change')} ({by_severity})"
    if extra_severities:
        details += f", {len(extra_severities)} reported by the model"
    return _Factor("Breaking changes", 30, Fraction(worst), details)


def _untested_factor(coverage: CoverageSummary) -> _Factor:
    total = coverage.changed_source_files
    if total == 0:
        return _Factor("Untested changes", 25, Fraction(0), "No source files changed")
    untested = max(0, total - coverage.with_test_updates)
    score = Fraction(untested, total) * 100
    details = f"{untested} of {_plural(total, 'changed source file')} without test updates"
    return _Factor("Untested changes", 25, score, details)


def _diff_size_factor(total_changed_lines: int) -> _Factor:
    score = diff_size_score(total_changed_lines)
    details = f"{_plural(total_changed_lines, 'changed line')} (additions + deletions)"
    return _Factor("Diff size", 15, Fraction(score), details)


def _stale_docs_factor(stale_docs: int) -> _Factor:
    score = min(stale_docs * 20, 100)
    if stale_docs == 0:
        details = "No stale documentation references"
    else:
        details = f"{_plural(stale_docs, 'stale documentation reference')}"
    return _Factor("Stale documentation", 10, Fraction(score), details)


def _config_factor(config: list[ConfigChange]) -> _Factor:
    if not config:
        return _Factor("Config changes", 10, Fraction(0), "No configuration files changed")
    riskiest = max(config, key=lambda change: change.score)
    tier = CONFIG_TIER_LABEL[riskiest.tier]
    details = f"{_plural(len(config), 'config file')} changed; riskiest: {riskiest.path} ({tier})"
    return _Factor("Config changes", 10, Fraction(riskiest.score), details)


def _breadth_factor(direct_importers: int) -> _Factor:
    """Direct importers, as the seed counts them: the transitive set saturates the factor."""
    score = min(direct_importers * 10, 100)
    details = f"{_plural(direct_importers, 'file')} importing the changed files directly"
    return _Factor("Impact breadth", 10, Fraction(score), details)
