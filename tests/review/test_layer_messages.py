"""What the review layer's agents are sent: the code a finding cites beside it, and a later
pass as the next message of the same conversation (only the new findings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from activities.layer_context import NOT_RUN, SUBMITTED, code_of, submission_results
from prflow.git.repo import resolve_range
from prflow.repo_models import RepoSpec
from prflow.review.agents.layer import (
    MAX_CODE_LINES_SHOWN,
    LayerRole,
    cited_lines,
    code_budget,
    layer_followup,
    layer_message,
)
from prflow.review.models import (
    DiffSide,
    FindingCategory,
    FindingSource,
    ReviewFinding,
    ReviewSeverity,
)
from tests.support.sample_repos import commit_all, init_repo, write_files

TEXT = "".join(f"value_{n} = {n}\n" for n in range(1, 101))


def _finding(title: str, line: int, file: str = "src/a.py") -> ReviewFinding:
    return ReviewFinding(
        file=file,
        line_start=line,
        line_end=line,
        side=DiffSide.right,
        title=title,
        body=f"The long explanation of {title}.",
        evidence=f"value_{line} = {line}",
        category=FindingCategory.correctness,
        severity=ReviewSeverity.important,
        confidence=0.8,
        source=FindingSource.reviewer,
        dimension_id="d",
        dimension_name="D",
        fingerprint=f"fp-{file}-{line}",
    )


def test_cited_lines_are_numbered_with_eight_lines_each_side() -> None:
    shown = cited_lines(TEXT, 50, 51)
    assert shown[0] == "42| value_42 = 42" and shown[-1] == "59| value_59 = 59"
    assert len(shown) == 18
    assert cited_lines(TEXT, 2, 2)[0] == " 1| value_1 = 1", "clipped at the top"
    assert cited_lines(TEXT, 100, 100)[-1] == "100| value_100 = 100", "and at the end"
    assert cited_lines(TEXT, 101, 101) == [], "a line past the end shows nothing"


def test_cited_lines_are_numbered_as_git_counts_them() -> None:
    """A form feed is no line end: the line after it keeps git's number."""
    text = "first\n\x0c\nthird = 3\nfourth\n"
    assert cited_lines(text, 3, 3, margin=0) == ["3| third = 3"]


def test_a_long_span_is_cut_to_the_limit_keeping_its_start() -> None:
    shown = cited_lines(TEXT, 20, 90, max_lines=40)
    assert len(shown) == 40
    assert any(line.startswith("20| ") for line in shown)


def test_the_lines_of_all_findings_stay_within_one_budget() -> None:
    excerpts = [["a"] * 150, ["b"] * 150, ["c"] * 150, ["d"] * 50]
    kept = code_budget(excerpts, limit=MAX_CODE_LINES_SHOWN)
    assert [len(k) for k in kept] == [150, 150, 0, 50]


def test_the_adversary_sees_the_cited_code_in_its_message() -> None:
    finding = _finding("Off by one", 50)
    code = {finding.fingerprint: cited_lines(TEXT, 50, 50)}
    message = layer_message(
        LayerRole.adversary, [finding], [], title="t", hints=[], deep_dives_left=0, code=code
    )
    assert "Code at head:" in message and "50| value_50 = 50" in message
    assert "42| value_42 = 42" in message and "58| value_58 = 58" in message
    bare = layer_message(LayerRole.adversary, [finding], [], title="t", hints=[], deep_dives_left=0)
    assert "Code at head:" not in bare


def test_a_later_pass_brings_only_the_new_findings() -> None:
    old, new = _finding("Timeout dropped", 10), _finding("Retry loops", 20)
    for role in LayerRole:
        later = layer_followup(role, [new], deep_dives_left=2)
        assert "Retry loops" in later and "The long explanation of Retry loops" in later
        assert "Timeout dropped" not in later and old.fingerprint not in later
        assert "Pull request:" not in later, "the title is in the conversation already"
    assert "Deep dives left for the whole review: 2." in layer_followup(
        LayerRole.cross_ref, [new], deep_dives_left=2
    )


def test_the_submission_is_answered_and_calls_beside_it_are_not_run() -> None:
    turn: list[dict[str, Any]] = [
        {"type": "text", "text": "Done."},
        {"type": "tool_use", "id": "t1", "name": "read_file_at_ref", "input": {}},
        {"type": "tool_use", "id": "t2", "name": "submit_challenges", "input": {}},
    ]
    results = submission_results(turn, "submit_challenges")
    assert [(r["tool_use_id"], r["content"]) for r in results] == [
        ("t1", NOT_RUN),
        ("t2", SUBMITTED),
    ]
    assert submission_results(turn[:2], "submit_challenges") == [], "no submission, no answer"


def test_code_is_read_at_head_for_each_finding(tmp_path: Path, prflow_home: Path) -> None:
    work = init_repo(tmp_path / "work")
    write_files(work, {"src/a.py": TEXT})
    base = commit_all(work, "base")
    write_files(work, {"src/a.py": TEXT.replace("value_50 = 50\n", "value_50 = 'fifty'\n")})
    head = commit_all(work, "head")
    rng = resolve_range(RepoSpec(location=str(work)), base, head)
    cited, gone = _finding("Fifty", 50), _finding("Missing", 5, file="src/none.py")
    code = code_of([cited, gone], rng)
    assert "50| value_50 = 'fifty'" in code[cited.fingerprint]
    assert gone.fingerprint not in code, "a file that is not there shows nothing"
