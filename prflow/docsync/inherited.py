"""Whether a class of the head still has a member, defined in its body or inherited.

Impact may report ``spawn.expect`` removed when the release moved ``expect`` into a base
class (pexpect 4.0's ``spawn(SpawnBase)``): callers still reach it, so a doc that uses it
is not wrong. The head's classes are read by name, bases by their last dotted part, only
in the package's own Python files; what cannot be parsed counts as not there.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from prflow.source_tree import SourceTree

_MAX_ROUNDS = 8
"""Base-class hops followed at most (the files defining each round's bases are read)."""


@dataclass(frozen=True)
class _Class:
    bases: tuple[str, ...]
    members: frozenset[str]


def kept_members(
    head: SourceTree, roots: Iterable[str], wanted: Iterable[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Which ``(class, member)`` pairs the head still has: a class of that name under
    ``roots`` (package folders) defines the member or inherits it from a base class it
    defines too."""
    wanted = set(wanted)
    prefixes = tuple(f"{root}/" for root in roots)
    texts = {
        path: head.read_text(path) or ""
        for path in head.paths()
        if path.endswith(".py") and path.startswith(prefixes)
    }
    classes = _classes(texts, {owner for owner, _member in wanted})
    return {(owner, member) for owner, member in wanted if _has(classes, owner, member)}


def _classes(texts: dict[str, str], names: set[str]) -> dict[str, list[_Class]]:
    """The classes named ``names`` and, transitively, their bases, by name."""
    found: dict[str, list[_Class]] = {}
    parsed: set[str] = set()
    pending = set(names)
    asked: set[str] = set()
    for _round in range(_MAX_ROUNDS):
        if not pending:
            break
        pattern = re.compile(
            r"^[ \t]*class[ \t]+(?:" + "|".join(map(re.escape, sorted(pending))) + r")\b",
            re.MULTILINE,
        )
        asked |= pending
        for path, text in texts.items():
            if path in parsed or not pattern.search(text):
                continue
            parsed.add(path)
            for name, cls in _read_classes(text):
                found.setdefault(name, []).append(cls)
        bases = {base for known in found.values() for cls in known for base in cls.bases}
        pending = bases - asked - set(found)
    return found


def _read_classes(text: str) -> list[tuple[str, _Class]]:
    """Every class of a module; by indentation when it does not parse as today's Python
    (pexpect 4.0's ``def expect(self, ..., async=False)``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return _by_indentation(text)
    return [(n.name, _describe(n)) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


_CLASS_LINE = re.compile(r"^([ \t]*)class[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?[ \t]*:")
_SELF_ASSIGNED = re.compile(r"\bself\.(\w+)[ \t]*=(?!=)")
_MEMBER_LINE = re.compile(r"(?:(?:async[ \t]+)?def|class)[ \t]+(\w+)|(\w+)[ \t]*(?::[^=]*)?=(?!=)")


def _by_indentation(text: str) -> list[tuple[str, _Class]]:
    lines = text.splitlines()
    found: list[tuple[str, _Class]] = []
    for index, line in enumerate(lines):
        header = _CLASS_LINE.match(line)
        if header is None:
            continue
        indent = len(header.group(1))
        bases = [b.strip().rsplit(".", 1)[-1] for b in (header.group(3) or "").split(",")]
        members: set[str] = set()
        body: int | None = None
        for inner in lines[index + 1 :]:
            stripped = inner.strip()
            if not stripped or stripped.startswith("#"):
                continue
            depth = len(inner) - len(inner.lstrip())
            if depth <= indent:
                break
            body = depth if body is None else body
            named = _MEMBER_LINE.match(stripped) if depth == body else None
            if named is not None:
                members.add(named.group(1) or named.group(2))
            members |= set(_SELF_ASSIGNED.findall(stripped))
        found.append((header.group(2), _Class(tuple(b for b in bases if b), frozenset(members))))
    return found


def _describe(node: ast.ClassDef) -> _Class:
    bases: list[str] = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            bases.append(base.id)
        elif isinstance(base, ast.Attribute):
            bases.append(base.attr)
    members: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            members.add(item.name)
        elif isinstance(item, ast.Assign):
            members |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members.add(item.target.id)
    for inner in ast.walk(node):  # ``self.logfile = None`` in a method: an instance attribute
        if not isinstance(inner, ast.Attribute) or not isinstance(inner.ctx, ast.Store):
            continue
        if isinstance(inner.value, ast.Name) and inner.value.id == "self":
            members.add(inner.attr)
    return _Class(tuple(bases), frozenset(members))


def _has(classes: dict[str, list[_Class]], owner: str, member: str) -> bool:
    seen: set[str] = set()
    pending = [owner]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for cls in classes.get(name, []):
            if member in cls.members:
                return True
            pending.extend(cls.bases)
    return False
