"""The use truth: docs where upstream edited a line that uses a broken object the way the
breakage touches, judged as an API checker judges a caller.

The strict truth (:func:`bench.docsync.truth.code_edit_truth_docs`) counts an edited line
that writes a broken object's name as code. For a changed signature that name is the
function's or, for ``__init__``, the class's, so every edited line naming the class counts:
flask 1.0 removed ``Flask.__init__``'s ``static_path``, and each ``:meth:`flask.Flask.route```
or ``app = Flask(__name__)`` that upstream reworded counted, although neither can see that
parameter. Here each of ``griffe``'s breakages (:mod:`bench.docsync.breakages`) says which
uses it affects:

- an object removed, an attribute's type or value changed, an object of another kind (not
  one used the same way: a property for an attribute, a class or function rebound under its
  name, :class:`bench.docsync.breakages.Breakage`; nor a module griffe reports removed
  whose file the head still ships): a line writing its name as code (the strict truth's
  reading of code), a class's member on a code line only after a dot (``app.logger_name``;
  ``for logger_name in ...`` is the doc's own name); a removed dunder member or base class
  is used by syntax (``with ctx:``, ``isinstance``), which no doc line names, so it counts
  nowhere;
- a changed return type: a code line using a call's result (bound, chained, passed on); a
  call standing as its own statement (``sock.bind(addr)``) discards it;
- a parameter removed, moved, of another kind, newly required: a call that passes the
  parameter or the slot the change touched (``f(x, y)`` after the second slot moved,
  ``f(timeout=1)`` after ``timeout`` went), or that does not pass one now required, or
  that unpacks ``*args``/``**kwargs`` (what it passes is unknown); a Sphinx signature
  (``.. method:: send(data, flags=0)``) that lists the changed parameter, or leaves out
  one now required. A changed default counts nowhere: a call passing the parameter does
  not use the default, and one leaving it out still runs.

The call reading here (:func:`split_arguments`, :func:`sees`) is the bench's own, not
``prflow.docsync.calls``: an oracle that shared the finder's code would share its mistakes.

Only the edited lines are read, as in the strict truth (the edits of the head release and,
:mod:`bench.docsync.later_fix`, of a later release of its line), and the call's arguments
are read from the base doc past the line, up to its closing parenthesis.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.docsync.breakages import PARAMETER_KINDS, Breakage
from bench.docsync.truth import (
    DIRECTIVE,
    LINE_COMMENT,
    STRING_LITERAL,
    LineUses,
    code_names,
    edited_line_uses,
    mentions_in_code,
)

NAME_KINDS = frozenset(
    {"OBJECT_REMOVED", "OBJECT_CHANGED_KIND", "ATTRIBUTE_CHANGED_TYPE", "ATTRIBUTE_CHANGED_VALUE"}
)
CALL_WINDOW = 20
"""A call's arguments are read this many lines past the line it opens on."""
_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)\s?")
_SIGNATURE = re.compile(
    r"^\s*\.\.\s+(?:py:)?(?:function|method|classmethod|staticmethod|class|"
    r"autofunction|automethod|autoclass)::\s*(?P<name>[\w.]+)\s*\((?P<params>.*)\)"
)


@dataclass(frozen=True)
class CallArguments:
    """What a doc's call passes: positional count, keyword names, whether it unpacks."""

    positional: int
    keywords: frozenset[str]
    unpacks: bool
    end: int | None
    """Just past the closing parenthesis in the text read; None when not found (then what
    the call passes is unknown)."""

    @property
    def complete(self) -> bool:
        return self.end is not None


def split_arguments(text: str) -> CallArguments:
    """The arguments of a call whose text starts just after ``(``."""
    depth, quote, start = 0, "", 0
    parts: list[str] = []
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                parts.append(text[start:i])
                return _classified(parts, end=i + 1)
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return _classified(parts, end=None)


def _classified(parts: list[str], *, end: int | None) -> CallArguments:
    positional, keywords, unpacks = 0, set(), False
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if part.startswith("*"):
            unpacks = True
        elif (keyword := re.match(r"(\w+)\s*=(?!=)", part)) is not None:
            keywords.add(keyword.group(1))
        else:
            positional += 1
    return CallArguments(positional, frozenset(keywords), unpacks, end)


def renamed_slots(breakages: Iterable[Breakage]) -> set[tuple[str, int]]:
    """``(object path, slot)`` of parameters renamed in place: griffe reports a rename as the
    old name removed and the new one added as required, at the same slot; a caller passing
    that slot by position is not affected (pyzmq 23's ``send(msg)`` -> ``send(data)``)."""
    removed = {(b.path, b.old_slot) for b in breakages if b.kind == "PARAMETER_REMOVED"}
    added = {(b.path, b.new_slot) for b in breakages if b.kind == "PARAMETER_ADDED_REQUIRED"}
    return {(path, slot) for path, slot in removed & added if slot is not None}


def sees(breakage: Breakage, call: CallArguments, renamed: set[tuple[str, int]]) -> bool:
    """Whether a call passing ``call`` behaves differently or fails after ``breakage``."""
    if call.unpacks or not call.complete:
        return True
    name, old, new = breakage.parameter, breakage.old_slot, breakage.new_slot
    passed_by_name = name in call.keywords
    kind = breakage.kind
    if kind == "PARAMETER_REMOVED":
        if old is not None and (breakage.path, old) in renamed:
            return passed_by_name
        return passed_by_name or (old is not None and call.positional > old)
    if kind == "PARAMETER_MOVED":
        slots = [s for s in (old, new) if s is not None]
        return bool(slots) and call.positional > min(slots)
    if kind == "PARAMETER_CHANGED_KIND":
        if breakage.new_kind == "positional-only":
            return passed_by_name
        return old is not None and call.positional > old
    if kind in ("PARAMETER_CHANGED_REQUIRED", "PARAMETER_ADDED_REQUIRED"):
        return not passed_by_name and not (new is not None and call.positional > new)
    return False


def _signature_sees(breakage: Breakage, params: str) -> bool:
    """A Sphinx signature's parameter list against a parameter breakage."""
    listed = {re.split(r"[=:\s]", p.strip().lstrip("*"), maxsplit=1)[0] for p in params.split(",")}
    if breakage.kind in ("PARAMETER_CHANGED_REQUIRED", "PARAMETER_ADDED_REQUIRED"):
        return breakage.parameter not in listed
    return breakage.parameter in listed


def call_name(breakage: Breakage) -> str | None:
    """How a doc calls the object: a class for its ``__init__``/``__new__``, else the last
    part of its name; None for another dunder (called by syntax)."""
    parts = breakage.name.split(".")
    if parts[-1] in ("__init__", "__new__") and len(parts) > 1:
        return parts[-2]
    if parts[-1].startswith("__"):
        return None
    return parts[-1]


def _masked(line: str, is_code: bool) -> str:
    """``line`` with string literals and comments blanked (same length) when it is code, so
    a call is found only in code and its arguments are read from the original text."""
    if not is_code:
        return line
    blank = STRING_LITERAL.sub(lambda m: " " * len(m.group(0)), line)
    return LINE_COMMENT.sub(lambda m: " " * len(m.group(0)), blank)


def _text_after(lines: list[str], index: int, column: int) -> str:
    """The doc's text from ``column`` of line ``index`` (0-based) on, for ``CALL_WINDOW``
    lines, doctest prompts removed."""
    rest = [lines[index][column:]]
    rest += [_PROMPT.sub("", line) for line in lines[index + 1 : index + 1 + CALL_WINDOW]]
    return "\n".join(rest)


def is_member(breakage: Breakage) -> bool:
    """A class's method or attribute (``Socket.send``), not a module's function or class: a
    doc reaches it through a receiver (``sock.send(...)``), never by its bare name."""
    return "." in breakage.name and call_name(breakage) == breakage.name.rsplit(".", 1)[-1]


def result_used(before: str, after: str | None) -> bool:
    """Whether a call on a code line has its result used: anything but a statement of its
    own (``sock.bind(addr)``, ``@app.register(...)`` applies it), which discards it.
    ``before``: the line up to the call's name; ``after``: the text past its closing
    parenthesis (None when not found)."""
    statement = _PROMPT.sub("", before).strip()
    if statement and not re.fullmatch(r"[\w.\[\]'\"()]*\.", statement):
        return True
    return after is None or bool(after.split("\n", 1)[0].strip())


def line_uses(
    lines: list[str],
    index: int,
    is_code: bool,
    calls: dict[str, list[Breakage]],
    renamed: set[tuple[str, int]],
) -> set[str]:
    """The broken callables line ``index`` calls in a way their breakage touches."""
    line = lines[index]
    found: set[str] = set()
    signature = _SIGNATURE.match(line)
    if signature is not None:
        name = signature.group("name").rsplit(".", 1)[-1]
        for breakage in calls.get(name, []):
            if _signature_sees(breakage, signature.group("params")):
                found.add(breakage.name)
        return found
    masked = _masked(line, is_code)
    for name, breakages in calls.items():
        for match in re.finditer(r"(?<![\w$])" + re.escape(name) + r"\(", masked):
            before = masked[: match.start()]
            if re.search(r"\b(?:def|class)\s+$", before):
                continue
            rest = _text_after(lines, index, match.end())
            arguments = split_arguments(rest)
            for b in breakages:
                if is_member(b) and not before.endswith("."):
                    continue
                if b.kind == "RETURN_CHANGED_TYPE":
                    after = None if arguments.end is None else rest[arguments.end :]
                    if is_code and result_used(before, after):
                        found.add(b.name)
                elif sees(b, arguments, renamed):
                    found.add(b.name)
    return found


def _name_uses(line: str, is_code: bool, names: set[str], members: set[str]) -> set[str]:
    """The ``names`` ``line`` writes as code; on a code line, a member's bare name only
    after a dot (``app.logger``): alone it is the doc's own variable (``for logger in``). A
    reST directive is never a code line, even indented under one (pyopenssl's ``.. data::
    CB_ISSUER_CHECK`` inside a class's block declares the removed member)."""
    is_code = is_code and not DIRECTIVE.match(line)
    found = mentions_in_code(line, is_code, names) if names else set()
    if not is_code:
        return found
    code = _masked(line, True)
    return {n for n in found if n not in members or re.search(rf"\.{re.escape(n)}(?![\w$])", code)}


def use_truth_docs(
    base_docs: dict[str, str],
    head_docs: dict[str, str],
    breakages: Sequence[Breakage],
    package: str,
) -> dict[str, set[str]]:
    """Docs upstream edited on a line that uses a broken object as its breakage touches,
    with the names or objects used."""
    return edited_line_uses(base_docs, head_docs, line_judge(breakages, package))


def line_judge(breakages: Sequence[Breakage], package: str) -> LineUses:
    """What a base doc line uses of ``breakages`` the way they touch it (the rules above)."""
    named = [
        b
        for b in breakages
        if b.kind in NAME_KINDS
        and not b.same_access
        and not b.still_there
        and not b.name.rsplit(".", 1)[-1].startswith("__")
    ]
    names = code_names([b.path if b.is_module else b.name for b in named], package)
    others = {b.name.rsplit(".", 1)[-1] for b in named if not is_member(b)}
    members = {b.name.rsplit(".", 1)[-1] for b in named if is_member(b)} - others
    calls: dict[str, list[Breakage]] = {}
    for b in breakages:
        if (b.kind in PARAMETER_KINDS and b.kind != "PARAMETER_CHANGED_DEFAULT") or (
            b.kind == "RETURN_CHANGED_TYPE"
        ):
            name = call_name(b)
            if name is not None and len(name) > 3:
                calls.setdefault(name, []).append(b)
    renamed = renamed_slots(breakages)

    def uses(lines: list[str], index: int, is_code: bool) -> set[str]:
        named = _name_uses(lines[index], is_code, names, members)
        return named | line_uses(lines, index, is_code, calls, renamed)

    return uses
