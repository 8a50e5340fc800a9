"""Pairing removed and added symbols into renames, for every language.

A rename shows up in a diff as one symbol disappearing and another appearing.
We call it a rename only when the two have the same kind and an equivalent
shape: first by an exact fingerprint (signature and body), then, for what is
left, by signature alone when that leaves exactly one candidate on each side.
Anything ambiguous stays a plain removal: a false "renamed to X" would send a
reviewer to the wrong place.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class RenameCandidate(Generic[T]):
    """A symbol that might be one half of a rename.

    ``exact_key`` identifies the symbol's full shape without its name;
    ``loose_key`` only its signature, or None when the signature is too
    generic (say ``() -> None``) to pair on.
    """

    name: str
    exact_key: Hashable
    loose_key: Hashable | None
    item: T


def pair_renames(
    removed: Sequence[RenameCandidate[T]], added: Sequence[RenameCandidate[T]]
) -> list[tuple[RenameCandidate[T], RenameCandidate[T]]]:
    """Pairs (old, new) judged to be the same symbol under a new name."""
    pairs = _pair_by(removed, added, lambda c: c.exact_key, allow_ambiguous=True)
    used_old = {id(old) for old, _ in pairs}
    used_new = {id(new) for _, new in pairs}
    rest_old = [c for c in removed if id(c) not in used_old and c.loose_key is not None]
    rest_new = [c for c in added if id(c) not in used_new and c.loose_key is not None]
    pairs += _pair_by(rest_old, rest_new, lambda c: c.loose_key, allow_ambiguous=False)
    return pairs


def _pair_by(
    removed: Sequence[RenameCandidate[T]],
    added: Sequence[RenameCandidate[T]],
    key: Callable[[RenameCandidate[T]], Hashable],
    *,
    allow_ambiguous: bool,
) -> list[tuple[RenameCandidate[T], RenameCandidate[T]]]:
    """Group both sides by key; within a group pair the most similar names first."""
    groups_old: dict[Hashable, list[RenameCandidate[T]]] = {}
    groups_new: dict[Hashable, list[RenameCandidate[T]]] = {}
    for candidate in removed:
        groups_old.setdefault(key(candidate), []).append(candidate)
    for candidate in added:
        groups_new.setdefault(key(candidate), []).append(candidate)
    pairs: list[tuple[RenameCandidate[T], RenameCandidate[T]]] = []
    for group_key, olds in groups_old.items():
        news = list(groups_new.get(group_key, []))
        if not news:
            continue
        if not allow_ambiguous and (len(olds) != 1 or len(news) != 1):
            continue
        pairs.extend(_closest_names(olds, news))
    return pairs


def _closest_names(
    olds: list[RenameCandidate[T]], news: list[RenameCandidate[T]]
) -> list[tuple[RenameCandidate[T], RenameCandidate[T]]]:
    """Greedy pairing by name similarity, deterministic on ties."""
    scored = sorted(
        (
            (-SequenceMatcher(None, old.name, new.name).ratio(), old.name, new.name, i, j)
            for i, old in enumerate(olds)
            for j, new in enumerate(news)
        ),
    )
    taken_old: set[int] = set()
    taken_new: set[int] = set()
    pairs: list[tuple[RenameCandidate[T], RenameCandidate[T]]] = []
    for _score, _old_name, _new_name, i, j in scored:
        if i in taken_old or j in taken_new:
            continue
        taken_old.add(i)
        taken_new.add(j)
        pairs.append((olds[i], news[j]))
    return pairs
