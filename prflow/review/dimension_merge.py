"""Dimensions with the same name or the same target files become one reviewer.

A planner that repeats itself ("Correctness" three times, or two dimensions over the
same file) would start a reviewer per repeat, each reading the same code. They are
merged before any becomes an agent: the first keeps its id and name, the prompts are
joined, target and context files united, the most important priority kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prflow.review.models import Dimension

MAX_MERGED_TARGETS = 25
MAX_MERGED_CONTEXT = 10
MAX_MERGED_PROMPT_CHARS = 6_000


def name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def targets_key(files: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(files)))


def _merged(group: Sequence[Dimension]) -> Dimension:
    first = group[0]
    if len(group) == 1:
        return first
    targets = list(dict.fromkeys(p for d in group for p in d.target_files))[:MAX_MERGED_TARGETS]
    context = [
        p for p in dict.fromkeys(p for d in group for p in d.context_files) if p not in targets
    ][:MAX_MERGED_CONTEXT]
    prompts = list({name_key(d.prompt): d.prompt.strip() for d in reversed(group)}.values())[::-1]
    prompt = "\n\nAlso, from a dimension merged into this one:\n".join(prompts)
    return first.model_copy(
        update={
            "prompt": prompt[:MAX_MERGED_PROMPT_CHARS],
            "target_files": targets,
            "context_files": context,
            "priority": min(d.priority for d in group),
        }
    )


def merge_repeats(dimensions: Sequence[Dimension]) -> list[Dimension]:
    """``dimensions`` in order, each merged into the first earlier group that has a member
    of its name or with its target files (one pass: a later dimension never joins two
    groups, so a plan does not collapse through chains of overlaps)."""
    groups: list[list[Dimension]] = []
    names: list[set[str]] = []
    targets: list[set[tuple[str, ...]]] = []
    for dimension in dimensions:
        name, files = name_key(dimension.name), targets_key(dimension.target_files)
        index = next(
            (i for i in range(len(groups)) if name in names[i] or files in targets[i]), None
        )
        if index is None:
            groups.append([dimension])
            names.append({name})
            targets.append({files})
            continue
        groups[index].append(dimension)
        names[index].add(name)
        targets[index].add(files)
    return [_merged(group) for group in groups]


def repeats_of(dimension: Dimension, names: set[str], targets: set[tuple[str, ...]]) -> bool:
    """Whether ``dimension`` has the name or the target files of one already run."""
    return name_key(dimension.name) in names or targets_key(dimension.target_files) in targets
