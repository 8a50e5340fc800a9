"""One question, one agent: dimensions that ask what the run already asked are dropped.

Planners repeat themselves (two dimensions with the same prompt over the same
files), gap reviewers re-propose a planned dimension, and the resolver asks a
deep-dive question an earlier pass asked. Each such repeat would be a child
agent whose requests are word for word those of an earlier one. A dimension's
question is its prompt (whitespace and case aside) with its target and context
files; the first dimension asking it runs, later ones are dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from prflow.review.models import Dimension


def question_key(dimension: Dimension) -> str:
    """What ``dimension`` asks, as a short stable key (ids, names and priority aside)."""
    prompt = " ".join(dimension.prompt.split()).casefold()
    files = "\n".join(sorted(set(dimension.target_files)))
    context = "\n".join(sorted(set(dimension.context_files)))
    digest = hashlib.sha256(f"{prompt}\0{files}\0{context}".encode()).hexdigest()
    return digest[:32]


def new_questions(
    dimensions: Sequence[Dimension], asked: Iterable[str]
) -> tuple[list[Dimension], list[Dimension]]:
    """``dimensions`` split into those asking something new and the repeats."""
    seen = set(asked)
    fresh: list[Dimension] = []
    repeats: list[Dimension] = []
    for dimension in dimensions:
        key = question_key(dimension)
        if key in seen:
            repeats.append(dimension)
        else:
            seen.add(key)
            fresh.append(dimension)
    return fresh, repeats


def investigation_key(question: str, files: Sequence[str]) -> str:
    """What an investigation or deep dive asks: its question (whitespace and case aside) and
    its target files, whoever asked it and in whichever pass."""
    text = " ".join(question.split()).casefold()
    digest = hashlib.sha256(f"{text}\0{chr(10).join(sorted(set(files)))}".encode()).hexdigest()
    return digest[:32]


def once_each(reasons: Iterable[str]) -> list[str]:
    """``reasons`` with repeats removed, first occurrence kept (a finding rejected for
    several agents that submitted it is reported once)."""
    return list(dict.fromkeys(reasons))
