"""Synthesis in code, on a real git diff: scores, merges, floors, verdicts, incremental skips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prflow.git.repo import GitRepoReader, resolve_range
from prflow.repo_models import RepoSpec
from prflow.review.diff_map import DiffIndex
from prflow.review.fingerprints import finding_fingerprint
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    ReviewFinding,
    ReviewSeverity,
)
from prflow.review.similarity import MeaningIndex, finding_words
from prflow.review.synthesis import (
    SAME_MEANING,
    AdversaryVerdict,
    Multiplier,
    ReviewEvent,
    SynthesisInputs,
    VerdictKind,
    compute_score,
    review_event,
    synthesize,
    title_similarity,
)
from tests.support.fixtures_git import GitRepoBuilder

LABELLED_PAIRS = Path(__file__).resolve().parents[2] / "bench" / "review_merge" / "pairs.json"
BASE = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(10))


@pytest.fixture
def diff(git_repo: GitRepoBuilder, prflow_cache: object) -> DiffIndex:
    git_repo.write("svc/pay.py", BASE)
    git_repo.write("svc/other.py", "A = 1\n")
    git_repo.commit("base")
    git_repo.branch("feature")
    changed = BASE.replace("return x + 1\n", "return x - 1  # sign flipped\n")
    changed = changed.replace("return x + 9\n", "return x * 9\n")
    git_repo.write("svc/pay.py", changed)
    git_repo.commit("change")
    rng = resolve_range(RepoSpec(location=str(git_repo.path)), "main", "feature")
    reader = GitRepoReader.for_range(rng)
    return DiffIndex.from_patch(reader.diff(rng.merge_base_sha, rng.head_sha))


def finding(
    title: str,
    *,
    line: int = 6,
    end: int | None = None,
    severity: ReviewSeverity = ReviewSeverity.important,
    category: FindingCategory = FindingCategory.correctness,
    confidence: float = 0.8,
    by: str = "Arithmetic",
    file: str = "svc/pay.py",
    **extra: Any,
) -> ReviewFinding:
    base = ReviewFinding(
        file=file,
        line_start=line,
        line_end=end or line,
        severity=severity,
        category=category,
        title=title,
        body=extra.pop("body", "why"),
        confidence=confidence,
        dimension_id=by.lower(),
        dimension_name=by,
        source=FindingSource.reviewer,
        anchor=extra.pop("anchor", f"line {line}"),
        **extra,
    )
    return base.model_copy(
        update={"fingerprint": finding_fingerprint(file, category, base.anchor, title)}
    )


def test_score_is_weight_times_confidence_times_multipliers() -> None:
    assert compute_score(ReviewSeverity.critical, 0.5, []) == 0.5
    assert compute_score(ReviewSeverity.important, 1.0, [Multiplier.cross_ref_compound]) == 1.05
    assert compute_score(
        ReviewSeverity.suggestion,
        0.5,
        [Multiplier.adversary_challenged, Multiplier.ai_generated_pr],
    ) == round(0.3 * 0.5 * 0.5 * 1.2, 3)


def test_exact_duplicates_merge_and_credit_both_reviewers(diff: DiffIndex) -> None:
    first = finding("Sign flipped in f1", confidence=0.9, by="Arithmetic")
    second = finding("Subtraction instead of addition", confidence=0.6, by="Money", end=7)
    result = synthesize([first, second], SynthesisInputs(), diff)
    (kept,) = result.findings
    assert kept.title == "Sign flipped in f1" and kept.also_found_by == ["Money"]
    assert result.suppressed.merged_duplicates == 1


def test_near_duplicates_merge_across_categories_but_distinct_issues_stay(
    diff: DiffIndex,
) -> None:
    a = finding("f1 returns the wrong sign", line=6, category=FindingCategory.correctness)
    b = finding(
        "wrong sign returned by f1",
        line=8,
        category=FindingCategory.reliability,
        body="a longer and better explanation of the same issue",
        confidence=0.8,
    )
    far = finding("f9 multiplies instead of adding", line=38)
    result = synthesize([a, b, far], SynthesisInputs(), diff)
    assert [f.title for f in result.findings] == [
        "wrong sign returned by f1",
        "f9 multiplies instead of adding",
    ]
    assert title_similarity(a.title, b.title) >= 0.5


def test_each_severity_has_its_confidence_floor(diff: DiffIndex) -> None:
    kept = finding("important at 0.35", confidence=0.35, line=6)
    dropped_nit = finding(
        "nitpick at 0.6", severity=ReviewSeverity.nitpick, confidence=0.6, line=38
    )
    dropped_suggestion = finding(
        "suggestion at 0.45", severity=ReviewSeverity.suggestion, confidence=0.45, line=20
    )
    result = synthesize([kept, dropped_nit, dropped_suggestion], SynthesisInputs(), diff)
    assert [f.title for f in result.findings] == ["important at 0.35"]
    assert result.suppressed.below_confidence == 2


def test_verdicts_and_multipliers_change_scores_and_severity(diff: DiffIndex) -> None:
    confirmed = finding("confirmed one", line=6, severity=ReviewSeverity.critical, confidence=1.0)
    challenged = finding(
        "challenged one", line=38, severity=ReviewSeverity.critical, confidence=1.0
    )
    inputs = SynthesisInputs(
        verdicts=[
            AdversaryVerdict(fingerprint=confirmed.fingerprint, verdict=VerdictKind.confirmed),
            AdversaryVerdict(
                fingerprint=challenged.fingerprint,
                verdict=VerdictKind.challenged,
                reason="pre-existing",
            ),
        ],
        compound_fingerprints=[confirmed.fingerprint],
        ai_generated=0.7,
        high_blast_files=["svc/pay.py"],
    )
    result = synthesize([confirmed, challenged], inputs, diff)
    by_title = {f.title: f for f in result.findings}
    top = by_title["confirmed one"]
    assert set(top.multipliers) == {
        Multiplier.cross_ref_compound,
        Multiplier.adversary_confirmed,
        Multiplier.ai_generated_pr,
        Multiplier.blast_radius_high,
    }
    assert top.score == round(1.0 * 1.5 * 1.3 * 1.2 * 1.2, 3)
    low = by_title["challenged one"]
    assert low.severity == ReviewSeverity.important, "a challenged finding drops one level"
    assert low.verdict_reason == "pre-existing"
    assert low.score == round(0.7 * 0.5 * 1.2 * 1.2, 3)
    assert [f.title for f in result.findings] == ["confirmed one", "challenged one"]


def test_incremental_runs_skip_posted_findings_and_resolved_threads(diff: DiffIndex) -> None:
    posted = finding("already posted", line=6)
    resolved = finding("on a resolved thread", line=38)
    fresh = finding("new", line=20, category=FindingCategory.performance)
    inputs = SynthesisInputs(
        posted_fingerprints=[posted.fingerprint], resolved_fingerprints=[resolved.fingerprint]
    )
    result = synthesize([posted, resolved, fresh], inputs, diff)
    assert [f.title for f in result.findings] == ["new"]
    assert (result.suppressed.already_posted, result.suppressed.on_resolved_threads) == (1, 1)


def test_every_kept_finding_is_placed_on_the_diff_or_in_the_body(diff: DiffIndex) -> None:
    on_diff = finding("on a changed line", line=6)
    off_diff = finding("between hunks", line=20, category=FindingCategory.performance)
    left = finding(
        "about the old code", line=6, side=DiffSide.left, category=FindingCategory.security
    )
    other = finding("unchanged file", file="svc/other.py", line=1)
    result = synthesize([on_diff, off_diff, left, other], SynthesisInputs(), diff)
    placed = {f.title: f.placement for f in result.findings}
    assert placed["on a changed line"].inline and placed["on a changed line"].line == 6
    assert placed["about the old code"].side == DiffSide.left
    assert (
        not placed["between hunks"].inline and "outside the diff" in placed["between hunks"].reason
    )
    assert not placed["unchanged file"].inline


def test_the_review_event_follows_the_severities() -> None:
    crit = finding("c", severity=ReviewSeverity.critical)
    imp = finding("i")
    sug = finding("s", severity=ReviewSeverity.suggestion)
    assert review_event([crit, imp, sug]) == ReviewEvent.request_changes
    assert review_event([imp, sug]) == ReviewEvent.comment
    assert review_event([sug]) == ReviewEvent.approve
    assert review_event([]) == ReviewEvent.approve
    assert review_event([sug], may_approve=False) == ReviewEvent.comment


def test_one_bug_in_two_reviewers_words_merges_by_meaning_a_neighbour_stays(
    diff: DiffIndex,
) -> None:
    a = finding(
        "Sign flipped in f1",
        line=6,
        by="Arithmetic",
        body="f1 now subtracts 1 where it added 1, so every caller gets x - 1 instead of x + 1.",
    )
    b = finding(
        "f1 subtracts instead of adding",
        line=7,
        by="Money",
        category=FindingCategory.reliability,
        body="The sign in f1 flipped: it subtracts the constant, so every caller of f1 gets "
        "a result two lower.",
    )
    other = finding(
        "f1 has no test for negative input",
        line=6,
        by="Tests",
        category=FindingCategory.tests,
        body="No test covers negative x, which the docs promise works.",
    )
    result = synthesize([a, b, other], SynthesisInputs(), diff)
    titles = {f.title for f in result.findings}
    assert len(titles) == 2 and "f1 has no test for negative input" in titles
    (kept,) = [f for f in result.findings if f.title != other.title]
    assert {kept.dimension_name, *kept.also_found_by} == {"Arithmetic", "Money"}
    assert title_similarity(a.title, b.title) < 0.5, "the old title rule kept them apart"
    assert (result.suppressed.merged_duplicates, result.suppressed.merged_by_meaning) == (1, 1)


def test_merging_by_meaning_on_the_labelled_pairs_stays_where_it_was_measured() -> None:
    pairs = json.loads(LABELLED_PAIRS.read_text())["pairs"]
    texts = [(p[side]["title"], p[side]["body"]) for p in pairs for side in "ab"]
    index = MeaningIndex([finding_words(title, body) for title, body in texts])
    merged = [
        title_similarity(p["a"]["title"], p["b"]["title"]) >= 0.5
        or index.cosine(
            finding_words(p["a"]["title"], p["a"]["body"]),
            finding_words(p["b"]["title"], p["b"]["body"]),
        )
        >= SAME_MEANING
        for p in pairs
    ]
    same = [bool(p["same"]) for p in pairs]
    assert len(pairs) >= 30
    assert sum(m for m, s in zip(merged, same, strict=True) if s) >= 10
    assert sum(m for m, s in zip(merged, same, strict=True) if not s) <= 1


def test_a_rerun_on_the_same_head_lists_its_findings_in_the_summary(diff: DiffIndex) -> None:
    from prflow.review.render.github_review import review_payload
    from prflow.review.render.summary import ReviewState, summary_comment
    from tests.review.report_factory import make_report

    first = [finding("sign flipped", line=6), finding("multiplies", line=38)]
    # The rerun reuses every answer: the same findings, all posted by the first run.
    inputs = SynthesisInputs(posted_fingerprints=[f.fingerprint for f in first])
    again = synthesize(first, inputs, diff)
    assert again.findings == [] and len(again.earlier) == 2
    report = make_report(again.findings, earlier_findings=again.earlier)
    summary = summary_comment(report, ReviewState(head="b" * 40))
    (headline,) = [line for line in summary.split("\n") if line.startswith("**Risk**")]
    assert "**Findings** 🟠 2 important" in headline and "none" not in headline
    assert "sign flipped (posted earlier)" in summary and "multiplies (posted earlier)" in summary
    payload = review_payload(report, "<!-- m -->")
    assert payload.comments == []  # nothing posted twice


def test_a_rebutted_finding_is_not_raised_again_until_its_cited_line_changes(
    diff: DiffIndex,
) -> None:
    rebutted = finding("intended, says the author", line=6, anchor="return amount * 1.1")
    inputs = SynthesisInputs(rebutted_fingerprints=[rebutted.fingerprint])
    result = synthesize([rebutted], inputs, diff)
    assert result.findings == [] and result.suppressed.rebutted == 1
    changed = finding("intended, says the author", line=6, anchor="return amount * 1.2")
    again = synthesize([changed], inputs, diff)
    assert [f.title for f in again.findings] == ["intended, says the author"], (
        "the cited line reads differently now: the finding is new"
    )
