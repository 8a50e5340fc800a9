"""The risk score formula of SPEC §4.1, checked at every band and level edge."""

from __future__ import annotations

import pytest

from prflow.analysis.findings import (
    BreakingChange,
    BreakingKind,
    ConfigChange,
    ConfigTier,
    CoverageSummary,
)
from prflow.impact.models import RiskAssessment, RiskLevel
from prflow.impact.scoring import assess_risk
from prflow.severity import Severity

KIND_FOR = {
    Severity.high: BreakingKind.removed_export,
    Severity.medium: BreakingKind.changed_signature,
    Severity.low: BreakingKind.changed_type,
}


def breaking(*severities: Severity) -> list[BreakingChange]:
    return [
        BreakingChange(
            file="src/api.py",
            symbol=f"symbol_{index}",
            kind=KIND_FOR[severity],
            severity=severity,
            language="python",
            detail="changed",
        )
        for index, severity in enumerate(severities)
    ]


def risk(
    *,
    severities: tuple[Severity, ...] = (),
    source_files: int = 0,
    tested: int = 0,
    lines: int = 0,
    stale: int = 0,
    tiers: tuple[ConfigTier, ...] = (),
    indirect: int = 0,
    extra: tuple[Severity, ...] = (),
) -> RiskAssessment:
    scores = {ConfigTier.ci_build: 100, ConfigTier.deploy: 75, ConfigTier.other: 50}
    return assess_risk(
        breaking=breaking(*severities),
        coverage=CoverageSummary(changed_source_files=source_files, with_test_updates=tested),
        total_changed_lines=lines,
        stale_docs=stale,
        config=[
            ConfigChange(path=f"cfg{index}", tier=tier, score=scores.get(tier, 25))
            for index, tier in enumerate(tiers)
        ],
        direct_importers=indirect,
        extra_breaking_severities=list(extra),
    )


def factor_score(assessment: RiskAssessment, name: str) -> float:
    return next(factor.score for factor in assessment.factors if factor.name == name)


def test_nothing_risky_scores_zero_low() -> None:
    assessment = risk()
    assert (assessment.score, assessment.level) == (0, RiskLevel.low)
    assert [f.weight for f in assessment.factors] == [0.30, 0.25, 0.15, 0.10, 0.10, 0.10]


def test_everything_maxed_scores_100_critical() -> None:
    assessment = risk(
        severities=(Severity.high,),
        source_files=3,
        lines=5000,
        stale=9,
        tiers=(ConfigTier.ci_build,),
        indirect=40,
    )
    assert (assessment.score, assessment.level) == (100, RiskLevel.critical)


@pytest.mark.parametrize(
    ("lines", "band_score", "total"),
    [(0, 0, 0), (99, 0, 0), (100, 50, 8), (500, 50, 8), (501, 80, 12), (1000, 80, 12),
     (1001, 100, 15)],
)  # fmt: skip
def test_diff_size_bands(lines: int, band_score: int, total: int) -> None:
    assessment = risk(lines=lines)
    assert factor_score(assessment, "Diff size") == band_score
    assert assessment.score == total  # 0.15 x 50 = 7.5 rounds half up to 8


@pytest.mark.parametrize(
    ("severities", "expected"),
    [
        ((Severity.low,), 30),
        ((Severity.low, Severity.medium), 60),
        ((Severity.medium, Severity.high, Severity.low), 100),
    ],
)
def test_breaking_factor_takes_the_worst_severity(
    severities: tuple[Severity, ...], expected: int
) -> None:
    assert factor_score(risk(severities=severities), "Breaking changes") == expected


def test_model_breaking_findings_count_like_static_ones() -> None:
    assessment = risk(severities=(Severity.low,), extra=(Severity.high,))
    assert factor_score(assessment, "Breaking changes") == 100
    details = assessment.factors[0].details
    assert "2 breaking changes" in details
    assert "1 reported by the model" in details


def test_untested_factor_is_share_of_source_files_without_test_updates() -> None:
    assessment = risk(source_files=3, tested=1)
    assert factor_score(assessment, "Untested changes") == pytest.approx(200 / 3)
    assert assessment.score == 17  # 0.25 x 66.67 = 16.67
    assert assessment.factors[1].details == "2 of 3 changed source files without test updates"


def test_no_changed_source_counts_as_fully_tested() -> None:
    assert factor_score(risk(lines=50), "Untested changes") == 0


@pytest.mark.parametrize(("stale", "expected"), [(1, 20), (4, 80), (5, 100), (12, 100)])
def test_stale_docs_twenty_each_capped(stale: int, expected: int) -> None:
    assert factor_score(risk(stale=stale), "Stale documentation") == expected


@pytest.mark.parametrize(("indirect", "expected"), [(1, 10), (9, 90), (10, 100), (250, 100)])
def test_impact_breadth_ten_each_capped(indirect: int, expected: int) -> None:
    assert factor_score(risk(indirect=indirect), "Impact breadth") == expected


@pytest.mark.parametrize(
    ("tiers", "expected"),
    [
        ((ConfigTier.env_or_lock,), 25),
        ((ConfigTier.env_or_lock, ConfigTier.other), 50),
        ((ConfigTier.other, ConfigTier.deploy), 75),
        ((ConfigTier.deploy, ConfigTier.ci_build, ConfigTier.other), 100),
    ],
)
def test_config_factor_takes_the_riskiest_tier(
    tiers: tuple[ConfigTier, ...], expected: int
) -> None:
    assessment = risk(tiers=tiers)
    assert factor_score(assessment, "Config changes") == expected


def test_config_details_name_the_riskiest_file() -> None:
    details = risk(tiers=(ConfigTier.other, ConfigTier.ci_build)).factors[4].details
    assert details == "2 config files changed; riskiest: cfg1 (CI/build)"


@pytest.mark.parametrize(
    ("inputs", "score", "level"),
    [
        ({"source_files": 1}, 25, RiskLevel.low),
        ({"source_files": 1, "indirect": 1}, 26, RiskLevel.medium),
        ({"source_files": 1, "severities": (Severity.low,), "lines": 2000, "indirect": 1}, 50,
         RiskLevel.medium),
        ({"source_files": 1, "severities": (Severity.low,), "lines": 2000, "indirect": 2}, 51,
         RiskLevel.high),
        ({"source_files": 1, "severities": (Severity.high,), "lines": 2000, "indirect": 5}, 75,
         RiskLevel.high),
        ({"source_files": 1, "severities": (Severity.high,), "lines": 2000, "indirect": 6}, 76,
         RiskLevel.critical),
    ],
)  # fmt: skip
def test_level_edges(inputs: dict[str, object], score: int, level: RiskLevel) -> None:
    assessment = risk(**inputs)  # type: ignore[arg-type]
    assert (assessment.score, assessment.level) == (score, level)


def test_halves_round_up() -> None:
    # 0.25 x 50 = 12.5: banker's rounding would give 12.
    assert risk(source_files=2, tested=1).score == 13


def test_every_factor_explains_itself() -> None:
    assessment = risk(severities=(Severity.medium,), lines=1234, stale=1, indirect=3)
    details = {factor.name: factor.details for factor in assessment.factors}
    assert details == {
        "Breaking changes": "1 breaking change (1 medium)",
        "Untested changes": "No source files changed",
        "Diff size": "1234 changed lines (additions + deletions)",
        "Stale documentation": "1 stale documentation reference",
        "Config changes": "No configuration files changed",
        "Impact breadth": "3 files importing the changed files directly",
    }
