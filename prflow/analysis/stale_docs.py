"""Documentation at head that still names what the PR removed, renamed, deleted or moved.

A doc line is stale when it names a removed or renamed public symbol, or a
deleted or renamed file. Names are matched as whole words. Names that are
also ordinary words (``get``, ``run``, ``Button``) only count inside code:
backticks, fenced or literal blocks; a class member with such a name only
counts when qualified (``Client.get``). Paths count written out in full,
through a relative link that resolves to them, or by file name inside code or
a link when no other file at head has that name.

Changelogs, release notes and upgrade guides are history, not instructions,
and are skipped. A class member (``Client.charset``) counts written qualified or as an
attribute (``response.charset``), never as a bare word ("the
charset", "errors are shown"). A move that reads the same in prose is not
reported: a Python module whose dotted name did not change (``requests/`` to
``src/requests/``), and a src-layout move's old path outside a relative link.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prflow.analysis.findings import BreakingChange, BreakingKind, StaleDocRef, StaleReason
from prflow.changes import ChangedFile, FileStatus
from prflow.source_suffixes import ANALYSED_SOURCE_SUFFIXES
from prflow.source_tree import SourceTree
from prflow.text_lines import split_lines

DOC_SUFFIXES = (".md", ".mdx", ".markdown", ".rst", ".txt")
_DOC_DIRS = {"doc", "docs", "documentation", "guide", "guides", "wiki", "manual"}
_HISTORY_PREFIXES = (
    "changelog",
    "changes",
    "history",
    "news",
    "release",
    "upgrading",
    "upgrade",
    "migrating",
    "migration",
)
_LAYOUT_ROOTS = ("src/", "lib/")
_SKIPPED_DIRS = ("node_modules/", "vendor/", ".git/")
_EXCERPT_LIMIT = 200

# Identifiers that read as ordinary words in prose; they need code formatting to count.
_COMMON_WORDS_TEXT = """
    add app apply base build call card check clear client close config connect content core
    count create data default delete error event execute fetch file filter find form format
    get handle header helper helpers index init input item items key keys layout length link
    list load main map message modal model name next node number object open options output
    page parse path print process query read remove render request reset response result run
    save search send server set size sort source start state status stop string table target
    test text tree type update user util utils value values view write button footer
"""
_COMMON_WORDS = frozenset(_COMMON_WORDS_TEXT.split())


def is_doc_path(path: str) -> bool:
    """README files anywhere, Markdown/reST anywhere, plain text in docs folders."""
    if path.startswith(_SKIPPED_DIRS) or any(f"/{d}" in path for d in _SKIPPED_DIRS):
        return False
    directories, _, name = path.rpartition("/")
    lowered = name.lower()
    if lowered.startswith(_HISTORY_PREFIXES):
        return False
    if lowered.startswith("readme"):
        return True
    if not lowered.endswith(DOC_SUFFIXES):
        return False
    if lowered.endswith(".txt"):
        return any(part.lower() in _DOC_DIRS for part in directories.split("/"))
    return True


def find_stale_doc_refs(
    changed: list[ChangedFile], breaking: list[BreakingChange], head: SourceTree
) -> list[StaleDocRef]:
    """One reference per (doc, line, target), sorted by doc and line."""
    all_paths = head.paths()
    modules = frozenset(m for m in map(_python_module, all_paths) if m)
    targets = list(_symbol_targets(breaking, modules)) + list(_path_targets(changed, all_paths))
    if not targets:
        return []
    found: dict[tuple[str, int, str], StaleDocRef] = {}
    # A target whose replacement is spelt the same names nothing that moved; a removed
    # name that the head still defines (moved to another module, still exported) is alive.
    targets = [t for t in targets if t.replacement is None or t.replacement != t.name]
    alive = _defined_at_head(
        head, {t.name for t in targets if t.reason is StaleReason.removed_symbol}
    )
    targets = [t for t in targets if t.name not in alive]
    for doc in all_paths:
        if not is_doc_path(doc):
            continue
        text = head.read_text(doc)
        if text is None:
            continue
        foreign = _foreign_imports(text)
        in_doc = [t for t in targets if not _imported_elsewhere(t, foreign)]
        for line_no, line, in_code_block in _doc_lines(text, doc):
            context = _LineContext.of(line, in_code_block, doc)
            for target in in_doc:
                key = (doc, line_no, target.name)
                if key not in found and target.matches(context):
                    found[key] = StaleDocRef(
                        doc_file=doc,
                        line=line_no,
                        target=target.name,
                        reason=target.reason,
                        excerpt=line.strip()[:_EXCERPT_LIMIT],
                        replacement=target.replacement,
                    )
    return sorted(found.values(), key=lambda r: (r.doc_file, r.line, r.target))


# --- what to look for -------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    name: str
    reason: StaleReason
    replacement: str | None
    anywhere: tuple[re.Pattern[str], ...] = ()
    in_code: tuple[re.Pattern[str], ...] = ()
    link_path: str | None = None
    link_basename: str | None = None
    package: str | None = None  # top-level package of a symbol's module
    attribute: re.Pattern[str] | None = None  # ``x.member``, unless x.member is a module
    modules: frozenset[str] = frozenset()

    def matches(self, line: _LineContext) -> bool:
        if any(p.search(line.text) for p in self.anywhere):
            return True
        if self.attribute is not None and any(
            m.group(0) not in self.modules for m in self.attribute.finditer(line.text)
        ):
            return True
        if any(p.search(code) for p in self.in_code for code in line.code):
            return True
        if self.link_path is not None and self.link_path in line.resolved_links:
            return True
        if self.link_basename is not None:
            spans = [*line.code, *line.links]
            return any(_word(self.link_basename).search(span) for span in spans)
        return False


def _defined_at_head(head: SourceTree, names: set[str]) -> set[str]:
    """The undotted ``names`` some source file at head still defines or assigns at the
    module level (``def``/``class``/``function``, ``NAME =``, ``const NAME =``)."""
    plain = {name for name in names if re.fullmatch(r"[A-Za-z_$][\w$]*", name)}
    if not plain:
        return set()
    alternatives = "|".join(re.escape(name) for name in sorted(plain))
    pattern = re.compile(
        rf"^(?:export\s+)?(?:async\s+)?(?:def|class|function)\s+({alternatives})\b"
        rf"|^(?:export\s+)?(?:(?:const|let|var)\s+)?({alternatives})\s*(?::[^=\n]*)?=(?!=)",
        re.M,
    )
    found: set[str] = set()
    for path in head.paths():
        if not path.endswith(ANALYSED_SOURCE_SUFFIXES) or path.startswith(_SKIPPED_DIRS):
            continue
        if "test" in path.lower():  # a test's local of the same name keeps nothing alive
            continue
        text = head.read_text(path)
        if text:
            found.update(m.group(1) or m.group(2) for m in pattern.finditer(text))
            if found >= plain:
                break
    return found


_FROM_IMPORT = re.compile(r"^\W*from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)", re.M)


def _foreign_imports(text: str) -> dict[str, set[str]]:
    """Name -> top-level packages a doc's code imports it from (``from pprint import pprint``)."""
    found: dict[str, set[str]] = {}
    for match in _FROM_IMPORT.finditer(text):
        top = match.group(1).lstrip(".").split(".")[0]
        for name in re.split(r"[\s,]+", match.group(2)):
            if name and name != "as":
                found.setdefault(name, set()).add(top)
    return found


def _imported_elsewhere(target: _Target, foreign: dict[str, set[str]]) -> bool:
    """A doc whose examples import this name only from another package means that one."""
    tops = foreign.get(target.name, set())
    return bool(tops) and target.package is not None and target.package not in tops


def _word(name: str) -> re.Pattern[str]:
    """``name`` as a whole word: not inside an identifier or a hyphenated word
    (``--allow-missing-config`` does not name ``missing``)."""
    return re.compile(rf"(?<![\w$-]){re.escape(name)}(?![\w$]|-\w)")


def _attribute(name: str) -> re.Pattern[str]:
    """``x.name`` (not ``x.name.y``): the dotted chain before it is group 1."""
    return re.compile(rf"(?<![\w$.])([\w$]+(?:\.[\w$]+)*)\.{re.escape(name)}(?![\w$.])")


def _is_common(name: str) -> bool:
    return len(name) <= 3 or name.lower() in _COMMON_WORDS


def _symbol_targets(
    breaking: Iterable[BreakingChange], modules: frozenset[str] = frozenset()
) -> Iterator[_Target]:
    for change in breaking:
        if change.kind not in (BreakingKind.removed_export, BreakingKind.renamed_export):
            continue
        symbol = change.symbol
        if symbol == "default" or not re.fullmatch(r"[\w$]+(\.[\w$]+)*", symbol):
            continue
        last = symbol.rsplit(".", 1)[-1]
        renamed = change.kind is BreakingKind.renamed_export
        if renamed and change.new_name and re.split(r"[.#]", change.new_name)[-1] == last:
            continue  # moved with its file, same name: the path targets cover it
        anywhere: list[re.Pattern[str]] = []
        in_code: list[re.Pattern[str]] = []
        if "." in symbol:  # a member or a module: qualified, or as an attribute (x.last)
            anywhere.append(_word(symbol))
        elif not _is_common(last):
            anywhere.append(_word(last))
        else:
            in_code.append(_word(last))
        module = _python_module(change.file)
        yield _Target(
            attribute=_attribute(last) if "." in symbol else None,
            modules=modules,
            name=symbol,
            reason=StaleReason.renamed_symbol if renamed else StaleReason.removed_symbol,
            replacement=change.new_name if renamed else None,
            anywhere=tuple(anywhere),
            in_code=tuple(in_code),
            package=module.split(".")[0] if module else None,
        )


def _path_targets(changed: Iterable[ChangedFile], head_paths: list[str]) -> Iterator[_Target]:
    basenames: dict[str, int] = {}
    for path in head_paths:
        name = path.rsplit("/", 1)[-1]
        basenames[name] = basenames.get(name, 0) + 1
    for item in changed:
        if item.status is FileStatus.deleted:
            old, new, reason = item.path, None, StaleReason.deleted_path
        elif item.status is FileStatus.renamed and item.old_path and item.old_path != item.path:
            old, new, reason = item.old_path, item.path, StaleReason.renamed_path
        else:
            continue
        basename = old.rsplit("/", 1)[-1]
        unique = basenames.get(basename, 0) == 0 and "." in basename
        pattern = re.compile(rf"(?<![\w./-])(?:\.?/)?{re.escape(old)}(?![\w/-]|\.\w)")
        layout_move = new is not None and any(new == root + old for root in _LAYOUT_ROOTS)
        yield _Target(  # a src-layout move breaks relative links only, not prose
            name=old,
            reason=reason,
            replacement=new,
            anywhere=() if layout_move else (pattern,),
            link_path=old,
            link_basename=basename if unique and basename != old and not layout_move else None,
        )
        module = _python_module(old)
        if module is not None:
            new_module = _python_module(new) if new is not None else None
            dotted = module.count(".") > 0
            yield _Target(
                name=module,
                reason=reason,
                replacement=new_module,
                anywhere=(_module_word(module),) if dotted else (),
                in_code=() if dotted else (_module_word(module),),
            )


def _python_module(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path.removesuffix(".py").split("/")
    if parts[0] in ("src", "lib") and len(parts) > 1:
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def _module_word(module: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w./]){re.escape(module)}(?![\w/]|\.(?:py|md|rst)\b)")


# --- reading docs -----------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINKS = re.compile(
    r"\]\(\s*<?([^)\s>]+)|<([^<>\s]+)>`_|(?:href|src)=\"([^\"]+)\"|^\s*\.\. \w[\w-]*:: (\S+)"
)


def code_spans(text: str) -> tuple[str, ...]:
    """The inline code spans of a doc line, without their backticks."""
    return tuple(m.group(2) for m in _INLINE_CODE.finditer(text))


def _doc_lines(text: str, doc: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, inside a code block) for Markdown fences and reST literal blocks."""
    rst = doc.lower().endswith(".rst")
    fence: str | None = None
    literal_opened_at: int | None = None  # indent of the reST line ending in "::"
    for number, line in enumerate(split_lines(text), start=1):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if fence is not None:
            closing = stripped.startswith(fence)
            fence = None if closing else fence
            yield number, line, not closing
            continue
        opening = _FENCE.match(line)
        if opening and not (rst and set(stripped) == {"~"}):  # reST: a section's underline
            fence = opening.group(1)
            yield number, line, False
            continue
        if rst and literal_opened_at is not None and stripped:
            if indent > literal_opened_at:
                yield number, line, True
                continue
            literal_opened_at = None
        if rst and stripped.endswith("::"):
            literal_opened_at = indent
        yield number, line, False


@dataclass(frozen=True)
class _LineContext:
    text: str
    code: tuple[str, ...]
    links: tuple[str, ...]
    resolved_links: frozenset[str]
    directive_paths_above: frozenset[tuple[str, str]] = frozenset()
    """For a directive's file argument (``.. plot:: pyplots/simple.py`` in
    ``doc/users/intro.rst``): (the path read from the doc's folder, the path read from a
    folder above it). Sphinx extensions read such arguments from a configured base folder
    (matplotlib's ``plot_basedir``) and Sphinx reads ``/x.png`` from its source folder, which
    the repository's root need not be."""

    @classmethod
    def of(cls, line: str, in_code_block: bool, doc: str) -> _LineContext:
        code = (line,) if in_code_block else code_spans(line)
        links = tuple(
            next(group for group in match.groups() if group) for match in _LINKS.finditer(line)
        )
        folder = posixpath.dirname(doc)
        resolved = set()
        above: set[tuple[str, str]] = set()
        for match, link in zip(_LINKS.finditer(line), links, strict=True):
            target = link.split("#", 1)[0].split("?", 1)[0]
            if not target or "://" in target or target.startswith("mailto:"):
                continue
            joined = (
                target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            )
            near = posixpath.normpath(joined)
            resolved.add(near)
            if match.group(4) and not target.startswith(("./", "../")):
                above |= {(near, path) for path in _read_from_above(folder, target)}
        return cls(line, code, links, frozenset(resolved), frozenset(above))


def _read_from_above(folder: str, target: str) -> Iterator[str]:
    """``target`` read from each folder above ``folder`` (for ``/x``, from ``folder`` too)."""
    relative = target.lstrip("/")
    parts = folder.split("/") if folder else []
    start = len(parts) if target.startswith("/") else len(parts) - 1
    for depth in range(start, -1, -1):
        yield posixpath.normpath(posixpath.join(*parts[:depth], relative))
