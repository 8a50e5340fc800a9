"""Synthesis in code: verdicts, multipliers, merging, confidence filters, scores, the event.

The model phases reason about issues; this module decides what the review
says. The same findings, verdicts and diff always give the same review:
scores are ``weight(severity) x confidence x multipliers``, duplicates are
merged by rule, each severity has its confidence floor, every finding is
placed on a diff line GitHub accepts (or in the body), and the review event
follows from the severities that remain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

from prflow.review.diff_map import DiffIndex, Placement, place
from prflow.review.models import SEVERITY_RANK, ReviewFinding, ReviewSeverity, one_level_down
from prflow.review.similarity import MeaningIndex, finding_words

BASE_WEIGHTS: dict[ReviewSeverity, float] = {
    ReviewSeverity.critical: 1.0,
    ReviewSeverity.important: 0.7,
    ReviewSeverity.suggestion: 0.3,
    ReviewSeverity.nitpick: 0.1,
}


class Multiplier(StrEnum):
    cross_ref_compound = "cross_ref_compound"
    adversary_confirmed = "adversary_confirmed"
    adversary_challenged = "adversary_challenged"
    ai_generated_pr = "ai_generated_pr"
    blast_radius_high = "blast_radius_high"


MULTIPLIERS: dict[Multiplier, float] = {
    Multiplier.cross_ref_compound: 1.5,
    Multiplier.adversary_confirmed: 1.3,
    Multiplier.adversary_challenged: 0.5,
    Multiplier.ai_generated_pr: 1.2,
    Multiplier.blast_radius_high: 1.2,
}

CONFIDENCE_FLOOR: dict[ReviewSeverity, float] = {
    ReviewSeverity.critical: 0.3,
    ReviewSeverity.important: 0.3,
    ReviewSeverity.suggestion: 0.5,
    ReviewSeverity.nitpick: 0.7,
}

AI_GENERATED_THRESHOLD = 0.5
NEAR_LINES = 3
"""Findings this many lines apart (or overlapping) may be the same issue."""
NEAR_TITLE_SIMILARITY = 0.5
"""Share of title words two findings must have in common to count as one issue."""
SAME_MEANING = 0.4
"""TF-IDF cosine of title and body above which two nearby findings are one issue in other
words: on bench/review_merge's 34 labelled pairs it merges 10 of 16 same-issue pairs and
1 of 18 different-issue pairs (0.35: 12 and 2; titles alone: 0 and 0)."""

_WORDS = re.compile(r"[a-z0-9_]+")
_STOPWORDS = frozenset(
    {"a", "an", "the", "is", "are", "in", "on", "of", "to", "for", "and", "or", "be", "not", "no"}
)


class ReviewEvent(StrEnum):
    request_changes = "REQUEST_CHANGES"
    comment = "COMMENT"
    approve = "APPROVE"


class VerdictKind(StrEnum):
    confirmed = "confirmed"
    challenged = "challenged"


class AdversaryVerdict(BaseModel):
    fingerprint: str
    verdict: VerdictKind
    reason: str = ""


class ScoredFinding(ReviewFinding):
    """A finding as the review reports it."""

    score: float
    multipliers: list[Multiplier] = Field(default_factory=list)
    placement: Placement
    also_found_by: list[str] = Field(default_factory=list)
    verdict_reason: str = ""


class Suppressed(BaseModel):
    """How many findings synthesis left out, by why."""

    merged_duplicates: int = 0
    merged_by_meaning: int = Field(
        default=0, description="Of merged_duplicates: nearby findings worded differently"
    )
    below_confidence: int = 0
    already_posted: int = 0
    on_resolved_threads: int = 0
    rebutted: int = Field(default=0, description="Findings the PR's people argued down earlier")


class SynthesisInputs(BaseModel):
    """Everything the verdict depends on besides the findings and the diff."""

    verdicts: list[AdversaryVerdict] = Field(default_factory=list)
    compound_fingerprints: list[str] = Field(default_factory=list)
    ai_generated: float = 0.0
    high_blast_files: list[str] = Field(default_factory=list)
    posted_fingerprints: list[str] = Field(default_factory=list)
    resolved_fingerprints: list[str] = Field(default_factory=list)
    rebutted_fingerprints: list[str] = Field(
        default_factory=list,
        description="Rebutted in the PR's conversation: not raised again while the cited line "
        "reads the same (the fingerprint names its text)",
    )
    may_approve: bool = True


class SynthesisResult(BaseModel):
    findings: list[ScoredFinding]
    suppressed: Suppressed
    event: ReviewEvent
    earlier: list[ScoredFinding] = Field(
        default_factory=list, description="Findings an earlier run already posted (not again)"
    )


def compute_score(
    severity: ReviewSeverity, confidence: float, multipliers: Iterable[Multiplier]
) -> float:
    score = BASE_WEIGHTS[severity] * confidence
    for multiplier in multipliers:
        score *= MULTIPLIERS[multiplier]
    return round(score, 3)


def synthesize(
    findings: Iterable[ReviewFinding], inputs: SynthesisInputs, diff: DiffIndex
) -> SynthesisResult:
    """Score, merge, filter and place ``findings``; decide the review event."""
    suppressed = Suppressed()
    verdicts = {v.fingerprint: v for v in inputs.verdicts}
    judged = [_judged(f, verdicts.get(f.fingerprint), inputs) for f in _ordered(findings)]
    merged = _merge(judged, exact_duplicates, suppressed)
    merged = _merge(merged, near_duplicates, suppressed)
    before = suppressed.merged_duplicates
    merged = _merge(merged, same_meaning_within(merged), suppressed)
    suppressed.merged_by_meaning = suppressed.merged_duplicates - before
    posted, resolved = set(inputs.posted_fingerprints), set(inputs.resolved_fingerprints)
    rebutted = set(inputs.rebutted_fingerprints)
    kept: list[ScoredFinding] = []
    earlier: list[ScoredFinding] = []
    for finding in merged:
        if finding.confidence < CONFIDENCE_FLOOR[finding.severity]:
            suppressed.below_confidence += 1
        elif finding.fingerprint in rebutted:
            suppressed.rebutted += 1
        elif finding.fingerprint in resolved:
            suppressed.on_resolved_threads += 1
        elif finding.fingerprint in posted:
            suppressed.already_posted += 1
            earlier.append(finding.model_copy(update={"placement": place(finding, diff)}))
        else:
            kept.append(finding.model_copy(update={"placement": place(finding, diff)}))
    kept.sort(key=lambda f: (-f.score, SEVERITY_RANK[f.severity], f.file, f.line_start))
    earlier.sort(key=lambda f: (-f.score, SEVERITY_RANK[f.severity], f.file, f.line_start))
    return SynthesisResult(
        findings=kept,
        suppressed=suppressed,
        event=review_event(kept, inputs.may_approve),
        earlier=earlier,
    )


def review_event(findings: Iterable[ReviewFinding], may_approve: bool = True) -> ReviewEvent:
    """Critical findings request changes, important ones comment, the rest approve.

    ``may_approve`` is false for a review that did not run in full (static mode,
    a phase cut by its budget, earlier threads still open): such a review
    comments instead of approving.
    """
    severities = {f.severity for f in findings}
    if ReviewSeverity.critical in severities:
        return ReviewEvent.request_changes
    if ReviewSeverity.important in severities or not may_approve:
        return ReviewEvent.comment
    return ReviewEvent.approve


def _ordered(findings: Iterable[ReviewFinding]) -> list[ReviewFinding]:
    return sorted(
        findings,
        key=lambda f: (
            f.file,
            f.line_start,
            SEVERITY_RANK[f.severity],
            -f.confidence,
            f.fingerprint,
        ),
    )


def _judged(
    finding: ReviewFinding, verdict: AdversaryVerdict | None, inputs: SynthesisInputs
) -> ScoredFinding:
    multipliers: list[Multiplier] = []
    severity = finding.severity
    reason = ""
    if finding.fingerprint in inputs.compound_fingerprints:
        multipliers.append(Multiplier.cross_ref_compound)
    if verdict is not None and verdict.verdict == VerdictKind.confirmed:
        multipliers.append(Multiplier.adversary_confirmed)
        reason = verdict.reason
    elif verdict is not None:
        multipliers.append(Multiplier.adversary_challenged)
        severity = one_level_down(severity)
        reason = verdict.reason
    if inputs.ai_generated > AI_GENERATED_THRESHOLD:
        multipliers.append(Multiplier.ai_generated_pr)
    if finding.file in inputs.high_blast_files:
        multipliers.append(Multiplier.blast_radius_high)
    return ScoredFinding(
        **finding.model_dump(exclude={"severity"}),
        severity=severity,
        score=compute_score(severity, finding.confidence, multipliers),
        multipliers=multipliers,
        placement=Placement(kind="body"),  # placed after filtering
        verdict_reason=reason,
    )


def _better(a: ScoredFinding, b: ScoredFinding) -> tuple[ScoredFinding, ScoredFinding]:
    """(kept, dropped): the higher score wins; equal scores keep the better-explained one."""
    key_a = (a.score, len(a.body), a.suggestion is not None)
    key_b = (b.score, len(b.body), b.suggestion is not None)
    return (a, b) if key_a >= key_b else (b, a)


def _absorb(kept: ScoredFinding, dropped: ScoredFinding) -> ScoredFinding:
    names = [*kept.also_found_by]
    for name in (dropped.dimension_name, *dropped.also_found_by):
        if name != kept.dimension_name and name not in names:
            names.append(name)
    multipliers = list(dict.fromkeys([*kept.multipliers, *dropped.multipliers]))
    contradictory = {Multiplier.adversary_confirmed, Multiplier.adversary_challenged}
    if contradictory <= set(multipliers):
        multipliers = [m for m in multipliers if m in kept.multipliers]
    return kept.model_copy(
        update={
            "also_found_by": names,
            "multipliers": multipliers,
            "score": compute_score(kept.severity, kept.confidence, multipliers),
            "suggestion": kept.suggestion or dropped.suggestion,
        }
    )


def _overlap(a: ReviewFinding, b: ReviewFinding, slack: int) -> bool:
    return (
        a.file == b.file
        and a.side == b.side
        and a.line_start <= b.line_end + slack
        and b.line_start <= a.line_end + slack
    )


def _merge(
    findings: list[ScoredFinding],
    same: Callable[[ScoredFinding, ScoredFinding], bool],
    suppressed: Suppressed,
) -> list[ScoredFinding]:
    """Fold each finding into the first kept one it is ``same`` as, keeping the better."""
    out: list[ScoredFinding] = []
    for finding in findings:
        twin = next((i for i, kept in enumerate(out) if same(kept, finding)), None)
        if twin is None:
            out.append(finding)
            continue
        kept, dropped = _better(out[twin], finding)
        out[twin] = _absorb(kept, dropped)
        suppressed.merged_duplicates += 1
    return out


def exact_duplicates(a: ReviewFinding, b: ReviewFinding) -> bool:
    """Same fingerprint, or the same category on overlapping lines of one file."""
    return a.fingerprint == b.fingerprint or (a.category == b.category and _overlap(a, b, 0))


def near_duplicates(a: ReviewFinding, b: ReviewFinding) -> bool:
    """Nearby lines with mostly the same title words: one issue seen from two angles."""
    similar = title_similarity(a.title, b.title) >= NEAR_TITLE_SIMILARITY
    return similar and _overlap(a, b, NEAR_LINES)


def same_meaning_within(
    findings: Sequence[ReviewFinding],
) -> Callable[[ReviewFinding, ReviewFinding], bool]:
    """Whether two nearby findings of ``findings`` describe one issue in other words,
    word weights taken from all of them (a word every finding uses says little)."""
    index = MeaningIndex([finding_words(f.title, f.body) for f in findings])

    def same(a: ReviewFinding, b: ReviewFinding) -> bool:
        if not _overlap(a, b, NEAR_LINES):
            return False
        similarity = index.cosine(finding_words(a.title, a.body), finding_words(b.title, b.body))
        return similarity >= SAME_MEANING

    return same


def title_similarity(a: str, b: str) -> float:
    """Jaccard similarity of two titles' words (stopwords left out)."""
    words_a = set(_WORDS.findall(a.lower())) - _STOPWORDS
    words_b = set(_WORDS.findall(b.lower())) - _STOPWORDS
    if not words_a or not words_b:
        return 0.0
    return len(words_a & words_b) / len(words_a | words_b)
