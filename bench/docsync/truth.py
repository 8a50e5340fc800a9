"""The truth of a release pair: docs upstream changed in that release because of a changed API.

Two oracles, both independent of prflow; the changed symbols are the API objects
``griffe check`` (the standard checker) reports as broken, each named by its last
dotted part (``Context.invoke`` -> ``invoke``; a method ``__init__`` names its class;
names of three letters or fewer are too vague to count).

- :func:`code_edit_truth_docs` (the strict truth, printed beside the headline use truth of
  :mod:`bench.docsync.use_truth`, which reads griffe's breakages to keep only the lines a
  change can affect): upstream's own
  edit of the doc removed or changed a line that writes a changed name as code (in
  backquotes or a Sphinx role, in a code block, in a Sphinx directive's arguments, or
  shaped ``name(``, ``.name``, ``name=``).
- :func:`truth_docs` (the old, loose truth, still printed beside it): the doc differs
  between the releases and its base text names a changed symbol as a whole word
  anywhere. It counts docs that use a changed name as an English word ("spider",
  "insert", "query") and were edited for unrelated reasons: an oracle defect, not a
  finder's miss; see :func:`code_edit_truth_docs` for why the strict one is right.
"""

from __future__ import annotations

import difflib
import re
import tarfile
from collections.abc import Callable, Iterable
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


def code_names(objects: Iterable[str], package: str) -> set[str]:
    """What the strict truth looks for: each object's last name (:func:`symbol_names`) and
    each dotted object's whole path (``Collection.insert``), which no prose word can be,
    whatever the length of its last part. A removed module (griffe names it by its file,
    ``src.tox.session.commands`` for the import ``package`` ``tox``) only by its dotted path
    (``tox.session.commands``, ``session.commands``): its last name alone is as often an ini
    key (``commands = pytest``) or another object."""
    names: set[str] = set()
    for obj in objects:
        parts = [p for p in obj.split(".") if p]
        while parts and parts[-1].startswith("__"):
            parts.pop()
        if parts[:1] in (["src"], ["lib"]):
            parts = parts[1:]
        if len(parts) > 1 and parts[0] == package:
            names.update({".".join(parts), ".".join(parts[-2:])})
            continue
        if len(parts) > 1:
            names.add(".".join(parts))
        names |= symbol_names([".".join(parts)])
    return names


def _alternatives(names: set[str]) -> str:
    """``names`` as a regex alternation, longest first (``Graph.add`` before ``Graph``)."""
    return "|".join(map(re.escape, sorted(names, key=lambda n: (-len(n), n))))


def _names_pattern(names: set[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$])(" + _alternatives(names) + r")(?![\w$])")


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


_CODE_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_DIRECTIVES = frozenset(
    {
        "code-block",
        "code",
        "sourcecode",
        "testcode",
        "testsetup",
        "testoutput",
        "doctest",
        "ipython",
        "jupyter-execute",
        "autosummary",
    }
)
"""reST directives whose body is code (``autosummary``: a list of API names)."""
DIRECTIVE = re.compile(r"^\s*\.\.\s+([\w:-]+)::")
_API_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:py:)?(?:function|method|class|attribute|data|exception|decorator|"
    r"module|currentmodule|auto\w+)::\s*(?P<args>.+)$"
)
"""A Sphinx Python-domain directive line; its arguments name API objects."""
_INLINE_CODE = re.compile(r"(?::(?P<role>[\w:+-]+):)?(`+)(?P<code>[^`]+?)\2(?P<link>_{1,2})?")
"""A backquoted span: Markdown code, reST ``literal``, a role's target (:func:`name`); a
reST hyperlink (`` `monotonic <https://...>`_ ``) ends in ``_``."""
_TEXT_ROLES = frozenset(
    {
        "term", "ref", "doc", "numref", "keyword", "option", "envvar", "pep", "rfc",
        "download", "abbr", "guilabel", "kbd", "program", "file", "command", "samp",
        "menuselection", "mailheader", "mimetype", "dfn", "math", "issue", "pr", "user",
        "bug", "commit", "gh", "sup", "sub", "emphasis", "strong",
    }
)  # fmt: skip
"""Sphinx roles whose target is text, not an API object (:term:`spider` is a glossary
entry)."""
STRING_LITERAL = re.compile(r"[rRbBuUfF]{0,2}(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')")
LINE_COMMENT = re.compile(r"(?:^|\s)#.*$")
_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.)(\s|$)")


def _opens_code_block(line: str) -> bool:
    """A code directive (``.. code-block:: python``, not ``.. note::``), or a paragraph
    ending in ``::`` (a reST literal block follows)."""
    directive = DIRECTIVE.match(line)
    if directive is not None:
        return directive.group(1) in _CODE_DIRECTIVES
    return line.rstrip().endswith("::")


def code_lines(text: str) -> set[int]:
    """The 1-based numbers of the lines of ``text`` that are code as a whole: fenced blocks,
    reST blocks indented under ``::`` or a code directive, doctest lines."""
    found: set[int] = set()
    fence: str | None = None
    block_indent: int | None = None
    """Inside an indented reST block: the indentation of the line that opened it."""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if fence is not None:
            found.add(n)
            if stripped.startswith(fence):
                fence = None
            continue
        opened = _CODE_FENCE.match(line)
        if opened is not None:
            fence = opened.group(1)
            found.add(n)
            continue
        if block_indent is not None:
            if not stripped:
                continue
            if indent > block_indent:
                found.add(n)
                continue
            block_indent = None
        if _DOCTEST.match(line):
            found.add(n)
        if _opens_code_block(line):
            block_indent = indent
    return found


def code_form_pattern(names: set[str]) -> re.Pattern[str]:
    """A name written as code anywhere in a line: called (``name(``; not ``project (~350
    hours)``), an attribute (``.name``) or a keyword (``name=``)."""
    words = _alternatives(names)
    return re.compile(
        r"(?<![\w$])(?:" + words + r")\(|\.(?:" + words + r")(?![\w$])"
        r"|(?<![\w$.])(?:" + words + r")\s*=(?!=)"
    )


def mentions_in_code(line: str, is_code: bool, names: set[str]) -> set[str]:
    """The ``names`` that ``line`` writes as code: any whole-word use outside string literals
    and comments when the line is code (:func:`code_lines`); else inside backquotes (inline
    code, a Sphinx role naming an API object; not a hyperlink or a text role such as
    ``:term:``) outside the span's string literals (``response.css('li.next a')`` names no
    ``next``), in a Sphinx Python directive's arguments, or shaped as code
    (:func:`code_form_pattern`)."""
    if not names:
        return set()
    word = _names_pattern(names)
    if is_code:
        return {m.group(1) for m in word.finditer(_code_only(line))}
    places = [
        STRING_LITERAL.sub('""', m.group("code"))
        for m in _INLINE_CODE.finditer(line)
        if not m.group("link") and (m.group("role") or "").rsplit(":", 1)[-1] not in _TEXT_ROLES
    ]
    directive = _API_DIRECTIVE.match(line)
    if directive:
        places.append(directive.group("args"))
    found = {m.group(1) for place in places for m in word.finditer(place)}
    spans_unquoted = _INLINE_CODE.sub(lambda m: STRING_LITERAL.sub('""', m.group(0)), line)
    for match in code_form_pattern(names).finditer(spans_unquoted):
        found |= {m.group(1) for m in word.finditer(match.group(0))}
    return found


def _code_only(line: str) -> str:
    """A code line without its string literals and comments: ``'duplicate key error'`` and
    ``# insert a document`` are text, not names of API objects."""
    return LINE_COMMENT.sub("", STRING_LITERAL.sub('""', line))


def code_edit_truth_docs(
    base_docs: dict[str, str], head_docs: dict[str, str], names: set[str]
) -> dict[str, set[str]]:
    """The strict truth: docs where upstream's own edit removed or changed a line that
    writes a changed symbol's name as code (:func:`mentions_in_code`), with those names.

    Why stricter than :func:`truth_docs`: that one counts any edited doc whose text names
    a changed symbol as a word anywhere, so a doc that says "spider", "insert" or "query"
    in prose and was edited for another reason (a typo, Python 2 prints made Python 3)
    counts although the API change did not touch it. A doc belongs in the truth when the
    upstream authors changed what it says about the changed object, and what a doc says
    about an API object it says in code form. An edit that only re-formats a line
    (whitespace, quote style, Python 2 ``u''`` prefixes: :func:`_unformatted`) is no
    edit, and inserted lines do not count (an insertion does not say which existing line
    was wrong). A removed doc counts when any of its lines writes such a name as code."""
    if not names:
        return {}
    return edited_line_uses(
        base_docs, head_docs, lambda lines, i, is_code: mentions_in_code(lines[i], is_code, names)
    )


LineUses = Callable[[list[str], int, bool], set[str]]
"""What one base doc line uses: its doc's lines, the line's 0-based index, whether it is
code (:func:`code_lines`)."""


def edited_line_uses(
    base_docs: dict[str, str], head_docs: dict[str, str], uses: LineUses
) -> dict[str, set[str]]:
    """Per doc, what ``uses`` finds on the lines upstream edited or removed (a re-formatting
    is no edit, an insertion names no line), where it finds anything."""
    changed = upstream_changed_lines(base_docs, head_docs, formatting=False)
    found: dict[str, set[str]] = {}
    for path, numbers in changed.items():
        lines = base_docs[path].splitlines()
        code = code_lines(base_docs[path])
        used: set[str] = set()
        for n in sorted(numbers):
            used |= uses(lines, n - 1, n in code)
        if used:
            found[path] = used
    return found


def _unformatted(line: str) -> str:
    """A line as compared for a real edit: whitespace collapsed, one quote style, no Python 2
    ``u''`` string prefix (re-indenting, re-wrapping, ``'.'`` -> ``"."`` and ``u'test'`` ->
    ``'test'`` say nothing about an API)."""
    collapsed = " ".join(line.split()).replace('"', "'")
    return re.sub(r"\b[uU]'", "'", collapsed)


def upstream_changed_lines(
    base_docs: dict[str, str],
    head_docs: dict[str, str],
    *,
    with_insertions: bool = False,
    formatting: bool = True,
) -> dict[str, set[int]]:
    """Per doc, the base release's line numbers (1-based) upstream edited or removed (and,
    ``with_insertions``, the line after which upstream inserted lines). Unless ``formatting``
    (an edit that only re-formats counts), lines equal but for :func:`_unformatted` are
    equal."""
    found: dict[str, set[int]] = {}
    for path, text in base_docs.items():
        after = head_docs.get(path)
        if after == text:
            continue
        old = text.splitlines()
        if after is None:
            found[path] = set(range(1, len(old) + 1))
            continue
        new = after.splitlines()
        if not formatting:
            old, new = [_unformatted(x) for x in old], [_unformatted(x) for x in new]
        matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        lines: set[int] = set()
        for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
            if tag in ("replace", "delete"):
                lines.update(range(i1 + 1, i2 + 1))
            elif tag == "insert" and with_insertions:
                lines.add(max(i1, 1))
        found[path] = lines
    return found
