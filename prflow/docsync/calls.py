"""Whether a call written in a doc can see a signature change, and which parameter it sees.

A call ``f('x')`` binds one positional slot; a change to a keyword-only
parameter, or to a later positional parameter with a default, leaves it
working exactly as before, so a doc holding only that call is not wrong. A
call sees a change when it passes a parameter that was removed, renamed,
moved or can no longer be passed the way it passes it (``timeout=`` after
``timeout`` went away; a second positional argument after the second slot
became keyword-only), or when the new signature requires a parameter the call
does not pass. The signatures are impact's one-line renderings
(``Client.fetch(self, url: str, *, timeout=None) -> bytes``); a call bound to
an instance or class (``client.fetch(...)``, ``Client(...)``) does not pass
``self``/``cls``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_BOUND = frozenset({"self", "cls", "mcs", "klass"})


@dataclass(frozen=True)
class Signature:
    """How callers may pass arguments: positional slots in order, keyword names, required."""

    positional: tuple[str, ...]
    keywords: frozenset[str]
    required: frozenset[str]
    var_positional: bool
    var_keyword: bool

    @classmethod
    def parse(cls, text: str | None, *, bound: bool) -> Signature | None:
        """``name(params) -> T`` as callers see it; None when it does not parse (a class
        line, TypeScript, a cut rendering). ``bound``: a leading ``self``/``cls`` is
        passed by the receiver."""
        spec = parameters(text)
        if spec is None:
            return None
        ordered = [*spec.posonlyargs, *spec.args]
        defaults = len(spec.defaults)
        required = {a.arg for a in ordered[: len(ordered) - defaults]}
        required |= {
            a.arg for a, d in zip(spec.kwonlyargs, spec.kw_defaults, strict=True) if d is None
        }
        if bound and ordered and ordered[0].arg in _BOUND:
            required.discard(ordered[0].arg)
            ordered = ordered[1:]
        positional_only = {a.arg for a in spec.posonlyargs}
        keywords = {a.arg for a in ordered if a.arg not in positional_only}
        keywords |= {a.arg for a in spec.kwonlyargs}
        return cls(
            positional=tuple(a.arg for a in ordered),
            keywords=frozenset(keywords),
            required=frozenset(required),
            var_positional=spec.vararg is not None,
            var_keyword=spec.kwarg is not None,
        )

    def slot(self, index: int) -> str | None:
        """The parameter the ``index``-th positional argument binds ("*" for ``*args``)."""
        if index < len(self.positional):
            return self.positional[index]
        return "*" if self.var_positional else None

    def accepts_keyword(self, name: str) -> bool:
        return name in self.keywords or self.var_keyword

    def unbound(self, positional: int, keywords: frozenset[str]) -> frozenset[str]:
        """Required parameters a call with these arguments leaves out."""
        bound = {self.slot(i) for i in range(positional)} | keywords
        return self.required - bound


@dataclass(frozen=True)
class CallArguments:
    """What a call passes: how many positional arguments, which keywords, and whether it
    unpacks ``*xs``/``**kw`` (then what it binds is unknown)."""

    positional: int
    keywords: frozenset[str]
    unpacks: bool

    @classmethod
    def parse(cls, inside: str) -> CallArguments | None:
        """The arguments between a call's parentheses; None when they are not Python."""
        try:
            parsed = ast.parse(f"_({inside})", mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return None
        if not isinstance(parsed, ast.Call):
            return None
        starred = any(isinstance(a, ast.Starred) for a in parsed.args)
        double = any(k.arg is None for k in parsed.keywords)
        return cls(
            positional=len(parsed.args),
            keywords=frozenset(k.arg for k in parsed.keywords if k.arg is not None),
            unpacks=starred or double,
        )


def seen_changes(before: Signature, after: Signature, call: CallArguments) -> list[str]:
    """The changed parameters ``call`` passes or now lacks (empty: it works as before).

    A call that was already incomplete for ``before`` (an elided example) is blamed
    only for what got worse."""
    seen: set[str] = set()
    for index in range(call.positional):
        old, new = before.slot(index), after.slot(index)
        if old is None:
            break  # already too many arguments for the old signature: an elided example
        if old != new and not _renamed_in_place(before, after, old, new):
            seen.add(old if old != "*" else (new or "*args"))
    for name in call.keywords:
        gone = before.accepts_keyword(name) and name not in after.keywords
        if gone and (name in before.keywords or not after.var_keyword):
            seen.add(name)  # removed, renamed, positional-only now, or no longer swallowed
    seen |= after.unbound(call.positional, call.keywords) - before.unbound(
        call.positional, call.keywords
    )
    if call.unpacks:
        seen |= _differences(before, after)
    return sorted(seen)


def _renamed_in_place(before: Signature, after: Signature, old: str, new: str | None) -> bool:
    """A slot whose parameter was renamed where it stands takes a positional argument as
    before: the new name is new, and the old one no longer takes a slot (sympy 1.0's
    ``GramSchmidt(vlist, orthog)`` -> ``(vlist, orthonormal)``; pyparsing 3's ``Word(
    init_chars, ..., *, initChars)`` keeps ``initChars`` as a keyword only). A name that
    moved in from another slot is a shift: the argument now lands elsewhere."""
    if new is None or "*" in (old, new):
        return False
    return new not in before.keywords | set(before.positional) and old not in after.positional


def _differences(before: Signature, after: Signature) -> set[str]:
    """Every parameter passed differently, for a call whose arguments are unknown."""
    slots = max(len(before.positional), len(after.positional))
    changed = {before.slot(i) or "" for i in range(slots) if before.slot(i) != after.slot(i)}
    changed |= before.keywords ^ after.keywords
    changed |= after.required - before.required
    return {name for name in changed if name and name != "*"}


def parameters(signature: str | None) -> ast.arguments | None:
    """The parameters of a one-line Python signature ``name(a, b=1, *, c) -> T``; None when
    it is no such line (a class line, TypeScript, a cut rendering)."""
    if not signature or signature.lstrip().startswith("class ") or "(" not in signature:
        return None
    inside = balanced(signature[signature.index("(") :])
    if inside is None:
        return None
    try:
        tree = ast.parse(f"def _({inside}): pass")
    except (SyntaxError, ValueError, RecursionError):
        return None
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    return function.args


def balanced(text: str) -> str | None:
    """What is inside the parentheses ``text`` opens with (None: they do not close)."""
    depth = 0
    quote: str | None = None
    for index, char in enumerate(text):
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return text[1:index]
    return None
