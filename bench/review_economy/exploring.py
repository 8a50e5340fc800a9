"""An exploring model: every agent reads for four turns before it answers on its fifth.

The representative conversation (:mod:`bench.review.conversation`) follows the prompts:
one window, one search, then the answer. A model that explores instead reads a window of
a changed file and searches on every turn, whatever its prompt says, and its planner
repeats dimension names (three "Correctness" dimensions, two "API compatibility", two
"Tests") over fewer files than dimensions. Every reviewer asks for the same two
investigations, the resolver asks for the same two deep dives on every pass (one of
them a question a reviewer asked too), and the coverage gate proposes a gap that
repeats a planned dimension. The impact anchor explores for five turns too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench.review.conversation import WINDOW_LINES, changed_sources, first_added_line
from tests.support.review_runs import (
    ADVERSARY,
    ANATOMY,
    COVERAGE,
    CROSS_REF,
    INTAKE,
    INVESTIGATION,
    PLANNER,
    dimension_key,
    every_pass,
    finding,
    reading,
    submit,
)
from tests.support.scripted_anthropic import Turn

TURNS_PER_AGENT = 5
PLANNED = [
    ("Correctness", 0),
    ("API compatibility", 1),
    ("Correctness", 1),
    ("Tests", 2),
    ("API compatibility", 0),
    ("Correctness", 2),
    ("Tests", 3),
    ("Error handling", 3),
]
"""(dimension name, index of its target among the changed sources): names repeat, and so
do targets."""


def _exploration(sources: list[str], salt: int, turns: int) -> list[Turn]:
    """``turns`` reading turns: a 60-line window of a changed file and a search each."""
    out: list[Turn] = []
    for turn in range(turns):
        path = sources[(salt + turn) % len(sources)]
        window = {"path": path, "offset_line": 1 + (salt * 7 + turn) * WINDOW_LINES // 2,
                  "limit_lines": WINDOW_LINES}  # fmt: skip
        words = re.findall(r"[A-Za-z_]{5,}", Path(path).stem + " " + path) or ["def"]
        search = {"pattern": words[(salt + turn) % len(words)], "glob": "*.py"}
        out.append(reading(("read_file_at_ref", window), ("search_code", search)))
    return out


def _questions(sources: list[str]) -> list[dict[str, Any]]:
    return [
        {"question": f"Do callers of {sources[1]} still work with the new behaviour?",
         "files": [sources[1]]},
        {"question": f"Is the error path of {sources[2]} tested?", "files": [sources[2]]},
    ]  # fmt: skip


def exploring_review(repo: Path) -> dict[str, list[Turn]]:
    """Routes for every agent of a review of ``base..head`` by the exploring model."""
    sources = changed_sources(repo)[:4]
    if len(sources) < 4:
        raise ValueError("the PR changes too few source files for the exploring review")
    target = first_added_line(repo, sources[0])
    report = finding(target.path, target.number, target.text, f"Check {target.path}",
                     severity="suggestion", confidence=0.6)  # fmt: skip
    explore = TURNS_PER_AGENT - 1
    dimensions = [
        {"name": name, "prompt": f"Review {sources[index]} for {name.lower()} problems that "
         f"callers would notice (dimension {number}).", "target_files": [sources[index]],
         "priority": min(number, 5)}
        for number, (name, index) in enumerate(PLANNED, 1)
    ]  # fmt: skip
    routes: dict[str, list[Turn]] = {
        INTAKE: [submit("submit_intake", pr_type="feature", complexity="complex",
                        areas_touched=["http"], risk_signals=["changes adapters"],
                        confident=True)],
        ANATOMY: [*_exploration(sources, 1, explore),
                  submit("submit_anatomy", narrative="A release.", risk_surfaces=["TLS"],
                         unrelated_changes=[], intent_gaps=[], context_notes="")],
        PLANNER: [*_exploration(sources, 2, explore),
                  submit("submit_review_plan", dimensions=dimensions,
                         cross_ref_hints=["adapters and sessions interact"])],
        INVESTIGATION: [*_exploration(sources, 3, explore), submit("submit_findings",
                                                                   findings=[])],
        ADVERSARY: every_pass(*_exploration(sources, 4, explore),
                              submit("submit_challenges", verdicts=[], missed=[])),
        CROSS_REF: every_pass(*_exploration(sources, 5, explore),
                              submit("submit_interactions", compounds=[],
                                     deep_dives=_questions(sources)[::-1])),
        COVERAGE: [submit("submit_coverage", complete=False, gaps=[
            {"name": "Correctness", "prompt": f"Review {sources[0]} for correctness.",
             "target_files": [sources[0]]},
        ])],
    }  # fmt: skip
    for salt, name in enumerate(dict.fromkeys(name for name, _ in PLANNED), 6):
        routes[dimension_key(name)] = [
            *_exploration(sources, salt, explore),
            submit("submit_findings", summary="Looked around.", findings=[report],
                   investigations=_questions(sources)),
        ]  # fmt: skip
    return routes


def exploring_impact(repo: Path) -> list[Turn]:
    """The impact agent of the same model: four reading turns, then its findings."""
    sources = changed_sources(repo)[:4]
    return [
        *_exploration(sources, 9, TURNS_PER_AGENT - 1),
        submit("submit_impact_findings", summary="Adapter changes.", findings=[],
               recommendations=["Test the new adapter hook."]),
    ]  # fmt: skip


REVIEWER_ROUTES = frozenset({INVESTIGATION, *(dimension_key(n) for n, _ in PLANNED)})
"""Routes whose conversations are the one reviewer definition (planned, gap, investigation,
deep dive)."""
