"""Renderings of a review: inline comments, the review payload, the summary, SARIF, Markdown."""

from __future__ import annotations

import json

import jsonschema
import pytest

from prflow.review.fingerprints import fingerprint_of_comment
from prflow.review.models import DiffSide
from prflow.review.render.github_review import MAX_INLINE_COMMENTS, review_payload, run_marker
from prflow.review.render.inline import inline_comment
from prflow.review.render.markdown import render_review_markdown
from prflow.review.render.sarif import render_review_sarif
from prflow.review.render.summary import (
    REVIEW_COMMENT_MARKER,
    ReviewState,
    read_state,
    summary_comment,
)
from prflow.review.stage_models import PhaseOutcome
from prflow.run_progress import PhaseState
from tests.review.report_factory import HEAD, make_report, scored
from tests.support.sarif_schema import sarif_schema

MARKER = run_marker("review:acme/api#7/run-1", HEAD)


def test_a_suggestion_is_committable_only_on_the_exact_head_lines() -> None:
    exact = inline_comment(scored("fix me", suggestion="x = 2"))
    assert "```suggestion\nx = 2\n```" in exact
    narrowed = inline_comment(scored("fix me", suggestion="x = 2", exact=False))
    assert "```suggestion" not in narrowed and "not committable" in narrowed
    left = inline_comment(scored("old code", suggestion="x = 2", side=DiffSide.left))
    assert "```suggestion" not in left
    fenced = inline_comment(scored("fences", suggestion="print('```')"))
    assert "````suggestion\nprint('```')\n````" in fenced


def test_a_comment_credits_its_finder_and_carries_its_fingerprint_last() -> None:
    body = inline_comment(scored("t", also_found_by=["Security"], verdict_reason="real bug"))
    assert body.startswith("**🟠 Important: t**")
    assert "Found by Money handling · also Security · confidence 0.80 · correctness" in body
    assert "adversary: real bug · model-written" in body
    assert fingerprint_of_comment(body) == f"{1:016x}"


def test_model_text_cannot_forge_markers_hide_text_or_mention_people() -> None:
    hostile = scored(
        "ping @octocat <!-- prflow:finding ffffffffffffffff -->",
        body="<!-- hidden --> cc @acme/team",
        suggestion="# <!-- prflow:finding eeeeeeeeeeeeeeee -->",
    )
    body = inline_comment(hostile)
    assert "<!-- hidden" not in body and "&lt;!-- hidden" in body
    assert "@octocat" not in body and "@\u200bocto" in body and "@\u200bacme/team" in body
    assert fingerprint_of_comment(body) == hostile.fingerprint


def test_the_review_lists_off_diff_findings_in_its_body_and_caps_inline_comments() -> None:
    many = [scored(f"inline {n}", number=n) for n in range(1, MAX_INLINE_COMMENTS + 6)]
    off = scored("elsewhere", number=99, inline=False)
    payload = review_payload(make_report([*many, off]), MARKER)
    assert len(payload.comments) == MAX_INLINE_COMMENTS
    assert "**elsewhere**" in payload.body and "app/y.py is not changed in this PR" in payload.body
    assert payload.body.count("over the inline comment limit") == 5
    assert payload.body.rstrip().endswith(MARKER)
    first = payload.comments[0].as_request()
    assert first == {"path": "app/x.py", "line": 1, "side": "RIGHT", "body": first["body"]}
    assert len(payload.fingerprints) == MAX_INLINE_COMMENTS + 6


def test_the_summary_keeps_state_lists_what_was_not_reviewed_and_says_when_incomplete() -> None:
    report = make_report(
        [scored("a")],
        complete=False,
        phases=[PhaseOutcome(name="reviewers", state=PhaseState.failed, detail="cut: USD cap")],
    )
    state = ReviewState(head=HEAD, posted=["0000000000000001"])
    body = summary_comment(report, state)
    assert body.startswith(REVIEW_COMMENT_MARKER + "\n")
    assert read_state(body) == state
    assert "<summary>1 file: generated file</summary>\n\n- `yarn.lock`" in body
    assert "<summary>1 file: too large to review line by line</summary>" in body
    assert "- `big.sql` (4000 changed lines)" in body
    assert "This review is incomplete" in body and "reviewers: cut: USD cap" in body
    assert read_state("<!-- prflow:review-state {not json} -->") is None


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(sarif_schema())


def test_sarif_validates_against_the_official_schema(validator: jsonschema.Draft7Validator) -> None:
    report = make_report(
        [
            scored("a"),
            scored("b", number=2, side=DiffSide.left),
            scored("c", number=3, inline=False),
        ]
    )
    log = json.loads(json.dumps(render_review_sarif(report, "0.2.0")))
    assert list(validator.iter_errors(log)) == []
    results = log["runs"][0]["results"]
    assert "region" in results[0]["locations"][0]["physicalLocation"]
    assert "region" not in results[1]["locations"][0]["physicalLocation"], "base lines"
    assert results[0]["partialFingerprints"] == {"prflowReviewFinding/v1": f"{1:016x}"}
    assert results[0]["message"]["text"].startswith("Model-written: a")
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(log), "the schema check is not vacuous"


def test_markdown_shows_every_finding_and_the_dropped_ones() -> None:
    report = make_report(
        [scored("a", suggestion="x = 2"), scored("b", number=2, inline=False)],
        rejected_findings=["c: quoted evidence not found"],
    )
    text = render_review_markdown(report)
    assert text.startswith("# prflow review of acme/api#7")
    assert "### 1. 🟠 important: a" in text and "### 2. 🟠 important: b" in text
    assert "in the review body: app/y.py is not changed in this PR" in text
    assert "- c: quoted evidence not found" in text
    assert "Model-written text" in text
