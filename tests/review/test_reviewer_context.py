"""What a reviewer is sent first: the PR's context shared byte for byte by every reviewer of
the run (one cached prefix), then its own dimension with its target's hunks in wide context."""

from __future__ import annotations

from pathlib import Path

from prflow.git.repo import GitRepoReader, open_local
from prflow.review.agents.reviewer import (
    HUNK_CONTEXT_LINES,
    reviewer_message,
    shared_context,
)
from prflow.review.models import Dimension
from tests.support.sample_repos import commit_all, git, init_repo, write_files

LINES = "".join(f"line_{n} = {n}\n" for n in range(1, 61))


def _dimension(name: str, path: str) -> Dimension:
    return Dimension(
        id=name.lower(), name=name, prompt=f"Look at {path}.", target_files=[path], priority=1
    )


def test_every_reviewer_gets_the_same_shared_context_and_only_its_own_part_after() -> None:
    def _shared() -> str:
        return shared_context(
            title="Move adapters under src/",
            context_note="Classified: feature, complex.",
            range_note="",
            reviewable=["src/a.py", "src/b.py"],
            not_reviewed=["poetry.lock"],
        )

    first, second = _shared(), _shared()
    assert first == second
    assert "Move adapters under src/" in first and "- src/b.py" in first
    assert "poetry.lock" in first
    own_a = reviewer_message(_dimension("Adapters", "src/a.py"), diffs={"src/a.py": "@@ a @@"})
    own_b = reviewer_message(_dimension("Sessions", "src/b.py"), diffs={"src/b.py": "@@ b @@"})
    assert "Move adapters under src/" not in own_a, "the shared part is not sent twice"
    assert "# Your review dimension: Adapters" in own_a and "@@ a @@" in own_a
    assert "@@ a @@" not in own_b


def test_hunks_are_shown_with_wide_context_but_not_the_whole_file(tmp_path: Path) -> None:
    work = init_repo(tmp_path / "work")
    write_files(work, {"values.py": LINES})
    base = commit_all(work, "base")
    write_files(work, {"values.py": LINES.replace("line_30 = 30\n", "line_30 = 'thirty'\n")})
    head = commit_all(work, "head")
    reader = GitRepoReader(open_local(str(work)))
    wide = reader.diff(base, head, ["values.py"], context=HUNK_CONTEXT_LINES)
    assert f"@@ -{30 - HUNK_CONTEXT_LINES},{2 * HUNK_CONTEXT_LINES + 1} " in wide
    assert " line_18 = 18" in wide and " line_42 = 42" in wide
    assert "\n line_17 = 17" not in wide and "line_43 = 43" not in wide
    assert "\n line_26 = 26" not in reader.diff(base, head, ["values.py"]), "placement keeps -U3"
    assert git(work, "rev-parse", "HEAD") == head


def test_a_finding_reaches_the_layer_in_full_once_then_as_one_line() -> None:
    from prflow.review.agents.layer import LayerRole, layer_message
    from prflow.review.models import (
        DiffSide,
        FindingCategory,
        FindingSource,
        ReviewFinding,
        ReviewSeverity,
    )

    def _finding(title: str, body: str) -> ReviewFinding:
        return ReviewFinding(
            file="src/a.py",
            line_start=3,
            line_end=3,
            side=DiffSide.right,
            title=title,
            body=body,
            evidence="x = 1",
            category=FindingCategory.correctness,
            severity=ReviewSeverity.important,
            confidence=0.8,
            source=FindingSource.reviewer,
            dimension_id="d",
            dimension_name="D",
        )

    old = _finding("Timeout dropped", "The long explanation of the timeout problem.")
    new = _finding("Retry loops", "The long explanation of the retry problem.")
    for role in LayerRole:
        first = layer_message(role, [old], [], title="t", hints=[], deep_dives_left=1)
        later = layer_message(role, [new], [old], title="t", hints=[], deep_dives_left=1)
        assert "The long explanation of the timeout problem." in first
        assert "The long explanation of the timeout problem." not in later
        assert "Timeout dropped" in later and "The long explanation of the retry" in later
