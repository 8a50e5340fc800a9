"""The truth of a release pair: docs upstream changed in that release that name a changed symbol.

A doc counts when its text differs between the two releases (upstream edited
or removed it) and its base text names, as a whole word, an API object that ``griffe
check`` (the standard checker, independent of prflow) reports as broken. A
name is the object's last dotted part (``Context.invoke`` -> ``invoke``; a
method ``__init__`` names its class); names of three letters or fewer are
too vague to count.
"""

from __future__ import annotations

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


def truth_docs(base_docs: dict[str, str], head_docs: dict[str, str], names: set[str]) -> set[str]:
    """Docs of the base release that upstream edited or removed, whose text names a changed
    symbol."""
    if not names:
        return set()
    pattern = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, sorted(names))) + r")(?![\w$])")
    return {
        path
        for path, text in base_docs.items()
        if head_docs.get(path) != text and pattern.search(text)
    }
