"""The docs of a repository: which files are docs, their front matter, and their links.

Docs are chosen by gitignore-style globs (``--docs`` replaces the defaults).
Front matter may map a doc to the code it describes: the seed's form
``attention: [{op: file, path: src/x.py}]``, ``{op: glob, pattern: "src/**"}``
entries, or a plain glob list under ``attention``, ``docsync`` or ``watch``.
Links are read with markdown-it-py for Markdown and with impact's line reader
for reStructuredText and AsciiDoc, and resolved to repository paths.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prflow.analysis.stale_docs import _LineContext as LineContext

if TYPE_CHECKING:  # pathspec, PyYAML and markdown-it load when docs are indexed, so a worker
    # registering the docsync activities starts without them
    import pathspec

DEFAULT_DOC_GLOBS = (
    "*.md",
    "*.mdx",
    "*.markdown",
    "*.rst",
    "*.adoc",
    "*.asciidoc",
    "README*",
)
_HISTORY = re.compile(
    r"^(?:version[-_]?|v?\d[\w.]*[-_])?"
    r"(change[-_]?log|changes|history|news|release[-_ ]?notes|whats-?new|release[-_]?v?\d"
    r"|migrat(?:e|ion|ing)|upgrad(?:e|ing)|porting|deprecat(?:ed|ions?)\b)",
    re.IGNORECASE,
)
"""History files by name, a version or year before it too (``versionhistory.rst``,
``2019-news.rst``). A migration or upgrade guide (``migrate_from_0_21.rst``,
``upgrading.md``) names removed APIs on purpose: it says what replaced them; so does a
register of deprecations (sphinx's ``deprecated.rst``: what was removed, and when)."""
_HISTORY_DIRS = re.compile(
    r"(?:^|/)(change[-_]?logs?|changes|history|news|releases?|release[-_]?notes|whats-?new"
    r"|(?:upgrad(?:e|ing)|migrat(?:e|ion|ing))(?:[-_]?guides?)?)/",
    re.IGNORECASE,
)
"""Release notes live in folders too (``doc/release/api_1.0.rst``, markdown's
``docs/change_log/index.md``): history is not rewritten."""
_SKIPPED_DIRS = ("node_modules/", "vendor/", ".git/", "site-packages/")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", re.DOTALL)
_MAPPING_KEYS = ("attention", "docsync", "watch")
_MD_SUFFIXES = (".md", ".mdx", ".markdown")
_AUTO_SUFFIXES = (".md", ".mdx", ".rst", ".adoc")
_RST_REF = re.compile(r":doc:`(?:[^`<]*<)?([^`>]+)>?`")
_ADOC_XREF = re.compile(r"(?:xref|link|include)::?([^\[\s]+)\[|<<([^,>]+)")


class DocGlobs:
    """Which paths are docs: the user's globs, or the defaults without history files."""

    def __init__(self, globs: Sequence[str] | None = None) -> None:
        self.custom = bool(globs)
        self.globs = tuple(globs) if globs else DEFAULT_DOC_GLOBS
        import pathspec

        self._spec: pathspec.PathSpec[Any] = pathspec.PathSpec.from_lines("gitignore", self.globs)

    def matches(self, path: str) -> bool:
        if not self._spec.match_file(path):
            return False
        if self.custom:
            return True
        if path.startswith(_SKIPPED_DIRS) or any(f"/{d}" in path for d in _SKIPPED_DIRS):
            return False
        if _HISTORY_DIRS.search(path) is not None:
            return False
        return _HISTORY.match(path.rsplit("/", 1)[-1]) is None

    def select(self, paths: Iterable[str]) -> list[str]:
        return sorted(p for p in paths if self.matches(p))


@dataclass
class FrontMatter:
    data: dict[str, Any] = field(default_factory=dict)
    lines: int = 0
    """How many lines the front matter block takes (0 when there is none)."""

    def watched(self) -> list[str]:
        """Paths and globs this doc declares it describes."""
        found: list[str] = []
        for key in _MAPPING_KEYS:
            found += _patterns(self.data.get(key))
        return found


def front_matter(text: str) -> FrontMatter:
    """The YAML block at the top of a doc; a block that does not parse counts as none."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return FrontMatter()
    import yaml

    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return FrontMatter()
    if not isinstance(data, dict):
        return FrontMatter()
    return FrontMatter(data=data, lines=match.group(0).count("\n"))


def _patterns(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return []
    found: list[str] = []
    for entry in value:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            for key in ("path", "pattern", "glob", "paths", "globs"):
                found += _patterns(entry.get(key))
    return found


def watch_spec(patterns: Sequence[str]) -> pathspec.PathSpec[Any]:
    """Front-matter patterns as a matcher; a plain path matches itself (leading ``/`` ignored)."""
    import pathspec

    return pathspec.PathSpec.from_lines("gitignore", [p.lstrip("/") for p in patterns])


def doc_links(doc: str, text: str, all_paths: frozenset[str]) -> set[str]:
    """Repository paths this doc links to (anchors and external URLs dropped)."""
    raw: list[str] = []
    if doc.lower().endswith(_MD_SUFFIXES):
        raw += _markdown_links(text)
    else:
        raw += _RST_REF.findall(text)
        raw += [a or b for a, b in _ADOC_XREF.findall(text)]
        for line in text.splitlines():
            raw += LineContext.of(line, False, doc).links
    folder = posixpath.dirname(doc)
    resolved: set[str] = set()
    for link in raw:
        target = _resolve(folder, link, all_paths)
        if target is not None and target != doc:
            resolved.add(target)
    return resolved


def _markdown_links(text: str) -> list[str]:
    from markdown_it import MarkdownIt

    found: list[str] = []
    tokens = MarkdownIt("commonmark").parse(text)
    for token in tokens:
        for child in token.children or []:
            href = child.attrGet("href") if child.type == "link_open" else None
            if isinstance(href, str):
                found.append(href)
    return found


def _resolve(folder: str, link: str, all_paths: frozenset[str]) -> str | None:
    target = link.split("#", 1)[0].split("?", 1)[0].strip()
    if not target or "://" in target or target.startswith(("mailto:", "#")):
        return None
    joined = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
    path = posixpath.normpath(joined)
    if path in all_paths:
        return path
    for suffix in _AUTO_SUFFIXES:
        if path + suffix in all_paths:
            return path + suffix
    for index in ("README.md", "index.md", "index.rst", "README.rst"):
        candidate = posixpath.join(path, index)
        if candidate in all_paths:
            return candidate
    return None
