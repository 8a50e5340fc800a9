"""A representative scripted conversation for every agent of a review of a real PR.

Built from the repository itself: the planner names real changed files, each
reviewer reads its target's diff and file, searches once and reports a
finding on a line the PR really adds (so its evidence checks out), the
adversary confirms one of them by its real fingerprint. The turns are what a
model would send; the requests and their token counts are prflow's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench.impact.repos import BASE_REF, HEAD_REF, git
from tests.support.review_runs import (
    ADVERSARY,
    ANATOMY,
    COVERAGE,
    CROSS_REF,
    INTAKE,
    PLANNER,
    dimension_key,
    every_pass,
    finding,
    fingerprint_of,
    reading,
    submit,
)
from tests.support.scripted_anthropic import Turn

MIN_LINE_CHARS = 12
PHASE_OF_ROUTE = {
    INTAKE: "intake",
    ANATOMY: "anatomy",
    PLANNER: "planning",
    ADVERSARY: "adversary",
    CROSS_REF: "cross_ref",
    COVERAGE: "coverage",
}


@dataclass(frozen=True)
class AddedLine:
    path: str
    number: int
    text: str


def changed_sources(repo: Path, suffix: str = ".py") -> list[str]:
    """Changed files with added lines, largest change first (tests last)."""
    rows = git(repo, "diff", "--numstat", "-M", BASE_REF, HEAD_REF).splitlines()
    counted: list[tuple[int, str]] = []
    for row in rows:
        added, _, path = row.split("\t", 2)
        path = path.split(" => ")[-1].replace("{", "").replace("}", "")
        if added.isdigit() and int(added) and path.endswith(suffix):
            counted.append((int(added), path))
    ordered = sorted(counted, key=lambda item: (item[1].startswith("tests"), -item[0]))
    return [path for _, path in ordered]


def first_added_line(repo: Path, path: str) -> AddedLine:
    """The first substantial line the PR adds to ``path``, with its number at head."""
    patch = git(repo, "diff", "-U0", BASE_REF, HEAD_REF, "--", path)
    number = 0
    for line in patch.splitlines():
        hunk = re.match(r"^@@ -\S+ \+(\d+)", line)
        if hunk:
            number = int(hunk.group(1))
            continue
        if line.startswith("+") and not line.startswith("+++"):
            text = line[1:]
            if len(text.strip()) >= MIN_LINE_CHARS:
                return AddedLine(path, number, text.strip())
            number += 1
    raise ValueError(f"{path} adds no substantial line")


WINDOW_LINES = 60
"""Lines a reviewer reads around its target beyond the hunks it was shown."""


def _reviewer(target: AddedLine, title: str, whole_files: bool) -> list[Turn]:
    """A reviewer as the prompt asks: from the hunks it was shown, one window of the file and
    one search, then its finding. ``whole_files``: as before the hunks were shown with wide
    context, it fetches the diff again and reads the whole file (and the planner and the
    adversary, which now read a window, read the whole file too)."""
    word = re.findall(r"[A-Za-z_]{4,}", target.text)
    search = ("search_code", {"pattern": word[0] if word else "def ", "glob": "*.py"})
    report = submit(
        "submit_findings", summary="One thing to look at.", findings=[_finding(target, title)]
    )
    if whole_files:
        return [
            reading(("git_diff", {"file": target.path})),
            reading(("read_file_at_ref", {"path": target.path}), search),
            report,
        ]
    window = {
        "path": target.path,
        "offset_line": max(1, target.number - WINDOW_LINES // 2),
        "limit_lines": WINDOW_LINES,
    }
    return [reading(("read_file_at_ref", window), search), report]


def _finding(target: AddedLine, title: str) -> dict[str, object]:
    return finding(
        target.path,
        target.number,
        target.text,
        title,
        severity="suggestion",
        confidence=0.6,
    )


def _anatomy(repo: Path, largest: str, whole_files: bool) -> list[Turn]:
    """Anatomy as its prompt asks: the changed files are in its first message, and so is the
    first page of the diff of the largest source change; it reads the diff of the largest
    source file only when that was not the one shown. ``whole_files``: as before, it lists
    the changed files and reads that diff whatever it was shown."""
    report = submit("submit_anatomy", narrative="A release: new adapter hooks and fixes.",
                    risk_surfaces=["TLS verification"], unrelated_changes=[],
                    intent_gaps=[], context_notes="Moves the package under src/.")  # fmt: skip
    read = reading(("git_diff", {"file": largest}))
    if whole_files:
        return [reading(("list_changed_files", {})), read, report]
    return [report] if anatomy_diff_shown(repo) == largest else [read, report]


def anatomy_diff_shown(repo: Path) -> str | None:
    """The file whose diff prflow puts in anatomy's first message, as its selection does (the
    source file with the most changed lines), from git's counts (source: a ``.py`` file
    outside tests)."""
    rows = git(repo, "diff", "--numstat", "-M", BASE_REF, HEAD_REF).splitlines()
    counted: list[tuple[int, str]] = []
    for row in rows:
        added, deleted, path = row.split("\t", 2)
        path = path.split(" => ")[-1].replace("{", "").replace("}", "")
        source = path.endswith(".py") and not path.startswith("tests")
        if added.isdigit() and deleted.isdigit() and source:
            counted.append((int(added) + int(deleted), path))
    return min(counted, key=lambda item: (-item[0], item[1]))[1] if counted else None


def _adversary(first_id: str, path: str, whole_files: bool) -> list[Turn]:
    """One pass of the adversary as its prompt asks: each finding comes with the lines
    around its citation, so it judges from those and submits. ``whole_files``: as before
    the code was shown, it reads the whole cited file first."""
    verdict = submit(
        "submit_challenges",
        missed=[],
        verdicts=[{"id": first_id, "verdict": "confirmed", "reason": "real"}],
    )
    if whole_files:
        return [reading(("read_file_at_ref", {"path": path})), verdict]
    return [verdict]


def review_conversation(
    repo: Path, dimensions: int = 5, *, whole_files: bool = False
) -> dict[str, list[Turn]]:
    """Routes for every agent of a standard-depth review of ``base..head``."""
    sources = changed_sources(repo)[:dimensions]
    if len(sources) < 2:
        raise ValueError("the PR changes too few source files for a representative review")
    targets = [first_added_line(repo, path) for path in sources]
    names = [f"Review of {path}" for path in sources]
    first_id = fingerprint_of(repo, HEAD_REF, _finding(targets[0], f"Check {sources[0]}"))
    window = {"path": sources[0], "limit_lines": WINDOW_LINES,
              "offset_line": max(1, targets[0].number - WINDOW_LINES // 2)}  # fmt: skip
    routes: dict[str, list[Turn]] = {
        INTAKE: [
            submit("submit_intake", pr_type="feature", complexity="complex",
                   areas_touched=["http", "tls"], risk_signals=["changes adapters"],
                   confident=True)
        ],
        ANATOMY: _anatomy(repo, sources[0], whole_files),
        PLANNER: [
            reading(("read_file_at_ref", {"path": sources[0]} if whole_files else window)),
            submit(
                "submit_review_plan",
                dimensions=[
                    {"name": name, "prompt": f"Review the changes to {path} for behaviour "
                     "changes that callers would notice.", "target_files": [path],
                     "priority": index + 1}
                    for index, (name, path) in enumerate(zip(names, sources, strict=True))
                ],
                cross_ref_hints=["adapter and session changes interact"],
            ),
        ],
        ADVERSARY: every_pass(*_adversary(first_id, sources[0], whole_files)),
        CROSS_REF: every_pass(submit("submit_interactions", compounds=[], deep_dives=[])),
        COVERAGE: [submit("submit_coverage", complete=True, gaps=[])],
    }  # fmt: skip
    for name, path, target in zip(names, sources, targets, strict=True):
        routes[dimension_key(name)] = _reviewer(target, f"Check {path}", whole_files)
    return routes


def impact_conversation(repo: Path) -> list[Turn]:
    """The impact agent's turns on the same PR: the anchor's conversation."""
    sources = changed_sources(repo)
    return [
        reading(("list_changed_files", {}), ("git_diff", {"file": sources[0]})),
        reading(("read_file_at_ref", {"path": sources[0]}),
                ("find_importers", {"path": sources[0]})),
        submit("submit_impact_findings", summary="Adapter changes.", findings=[],
               recommendations=["Test the new adapter hook."]),
    ]  # fmt: skip
