"""Type judgements tree-sitter can make without a compiler: unions of primitives and literals.

Comparing type annotations as text reports every rename of a type alias, every
``any`` that became ``unknown`` and every reordered union as a break. Without
the TypeScript compiler the only types we judge are those whose meaning is in
the text itself: unions of primitive keywords, their arrays and literals (``'a' | 'b'``,
``string | number | null``, ``string[]``). Anything naming another type is left to the
compiler (:mod:`prflow.analysis.ts_compiler`), or not judged at all.
"""

from __future__ import annotations

import re
from enum import Enum

_PRIMITIVES = frozenset(
    {"string", "number", "boolean", "bigint", "symbol", "null", "undefined", "void", "never"}
)
_TOP = frozenset({"any", "unknown"})
_LITERAL = re.compile(r"""(?:'[^'\\]*'|"[^"\\]*"|-?\d+(?:\.\d+)?|true|false)""")


class Flow(Enum):
    """Which way values cross the API boundary, which decides what a caller tolerates."""

    into = "into"
    """Arguments: the new type must accept every old value."""
    out_of = "out_of"
    """Return values and readable properties: the new type may only narrow."""
    both = "both"
    """Interface members and aliases, written and read by callers: must stay the same."""


def simple_union(text: str | None) -> frozenset[str] | None:
    """The members of a union of primitives and literals, or None for any other type."""
    if text is None:
        return None
    stripped = text.strip()
    if stripped.startswith("(") and stripped.endswith(")"):
        stripped = stripped[1:-1]
    members: set[str] = set()
    for part in stripped.lstrip("|").split("|"):
        atom = part.strip().replace('"', "'").removeprefix("readonly ")
        if atom.endswith("[]") and atom[:-2] in _PRIMITIVES:
            members.add(atom)
        elif atom == "boolean":
            members.update({"true", "false"})
        elif atom in _PRIMITIVES or atom in _TOP or _LITERAL.fullmatch(atom):
            members.add(atom)
        else:
            return None
    return frozenset(members) if members else None


def incompatible(old: str | None, new: str | None, flow: Flow) -> bool:
    """True when both types are simple unions and a caller of ``old`` cannot use ``new``."""
    before, after = simple_union(old), simple_union(new)
    if before is None or after is None or before == after:
        return False
    if flow is Flow.into:
        return not (after & _TOP or _covers(after, before))
    if flow is Flow.out_of:
        return not (before & _TOP or _covers(before, after))
    return not (before & _TOP and after & _TOP)


def _covers(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Every member of ``narrow`` is a member of ``wide`` (a literal counts under its primitive)."""
    for atom in narrow:
        if atom in wide or _primitive_of(atom) in wide:
            continue
        return False
    return True


def _primitive_of(atom: str) -> str | None:
    if atom.startswith("'"):
        return "string"
    if atom not in ("true", "false") and _LITERAL.fullmatch(atom):
        return "number"
    return None
