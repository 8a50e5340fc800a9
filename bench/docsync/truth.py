"""The truth of a release pair: docs upstream changed in that release that name a changed symbol.

A doc counts when its text differs between the two releases (upstream edited
or removed it) and its base text names, as a whole word, an API object that ``griffe
check`` (the standard checker, independent of prflow) reports as broken. A
name is the object's last dotted part (``Context.invoke`` -> ``invoke``; a
method ``__init__`` names its class); names of three letters or fewer are
too vague to count.
"""

from __future__ import annotations

import difflib
import re
import tarfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from prflow.docsync.doc_index import DocGlobs


def archive_texts(archive: Path, keep: DocGlobs) -> dict[str, str]:
    """The archive's doc files (top directory stripped) by path."""
    found: dict[str, str] = {}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts[1:]
            path = "/".join(parts)
            if not member.isfile() or not parts or not keep.matches(path):
                continue
            data = tar.extractfile(member)
            if data is not None:
                found[path] = data.read().decode("utf-8", errors="replace")
    return found


def symbol_names(objects: Iterable[str]) -> set[str]:
    names = set()
    for obj in objects:
        parts = [p for p in obj.split(".") if p]
        while parts and parts[-1].startswith("__"):
            parts.pop()
        if parts and len(parts[-1]) > 3:
            names.add(parts[-1])
    return names


def _names_pattern(names: set[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, sorted(names))) + r")(?![\w$])")


def truth_docs(base_docs: dict[str, str], head_docs: dict[str, str], names: set[str]) -> set[str]:
    """Docs of the base release that upstream edited or removed, whose text names a changed
    symbol."""
    if not names:
        return set()
    pattern = _names_pattern(names)
    return {
        path
        for path, text in base_docs.items()
        if head_docs.get(path) != text and pattern.search(text)
    }


LINE_WINDOW = 5
"""A changed line counts for a name on the same line or up to this many lines above it
(a call's arguments, the description under a signature)."""


_PLAIN_WORD = re.compile(r"[a-z]+")
"""A name that is also an English word (``spider``, ``next``, ``query``)."""


def _naming(names: set[str]) -> re.Pattern[str]:
    """A line naming one of ``names``: an identifier-shaped one as a word, an English word
    only written as code (after a dot, in backquotes, or called)."""
    shaped = sorted(n for n in names if not _PLAIN_WORD.fullmatch(n))
    plain = sorted(n for n in names if _PLAIN_WORD.fullmatch(n))
    parts = []
    if shaped:
        parts.append(r"(?<![\w$])(?:" + "|".join(map(re.escape, shaped)) + r")(?![\w$])")
    if plain:
        words = "|".join(map(re.escape, plain))
        parts.append(r"(?:\.|`)(?:" + words + r")(?![\w$])")
        parts.append(r"(?<![\w$])(?:" + words + r")\(")
    return re.compile("|".join(parts))


def line_truth_docs(
    base_docs: dict[str, str], head_docs: dict[str, str], names: set[str]
) -> set[str]:
    """The stricter truth: docs where upstream edited, removed or inserted lines at a line
    naming a changed symbol (:func:`_naming`) or within :data:`LINE_WINDOW` lines below one
    (an edit elsewhere in the doc, such as Python 2 prints made Python 3, does not count)."""
    if not names:
        return set()
    pattern = _naming(names)
    changed = upstream_changed_lines(base_docs, head_docs, with_insertions=True)
    found: set[str] = set()
    for path, lines in changed.items():
        naming = [
            n for n, line in enumerate(base_docs[path].splitlines(), 1) if pattern.search(line)
        ]
        if any(m <= n <= m + LINE_WINDOW for m in naming for n in lines):
            found.add(path)
    return found


def upstream_changed_lines(
    base_docs: dict[str, str], head_docs: dict[str, str], *, with_insertions: bool = False
) -> dict[str, set[int]]:
    """Per doc, the base release's line numbers (1-based) upstream edited or removed (and,
    ``with_insertions``, the line after which upstream inserted lines)."""
    found: dict[str, set[int]] = {}
    for path, text in base_docs.items():
        after = head_docs.get(path)
        if after == text:
            continue
        old = text.splitlines()
        if after is None:
            found[path] = set(range(1, len(old) + 1))
            continue
        matcher = difflib.SequenceMatcher(a=old, b=after.splitlines(), autojunk=False)
        lines: set[int] = set()
        for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
            if tag in ("replace", "delete"):
                lines.update(range(i1 + 1, i2 + 1))
            elif tag == "insert" and with_insertions:
                lines.add(max(i1, 1))
        found[path] = lines
    return found
