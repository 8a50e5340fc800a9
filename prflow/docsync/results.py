"""Whether doc code uses what a call returns in a way a changed return type can affect.

A function whose return type changed still takes the same arguments: ``fetch(url)``
alone, or ``print(fetch(url))``, reads the same after the change. An example goes stale
when it relies on the old result's shape: an attribute or an item of it
(``fetch(url).status``, ``fetch(url)[0]``), unpacking it (``body, code = fetch(url)``),
iterating over it (``for row in fetch(url):``), or the same through a name the result is
bound to (``resp = fetch(url)`` then ``resp.json()`` on a later code line).

The return types come from impact's one-line renderings (``fetch(url) -> Response``) or
from its ``changed_type`` detail (``return type changed from A to B``, JavaScript). A
removed annotation alone (``-> dict`` gone) is no change of shape: the value returned is
the same, so no use of it can see the change.
"""

from __future__ import annotations

import re
from enum import StrEnum

from prflow.docsync.calls import balanced


class ResultUse(StrEnum):
    """How a doc's code relies on the shape of a call's result."""

    attribute = "attribute"
    subscript = "subscript"
    unpacking = "unpacking"
    iteration = "iteration"


_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")
_CHAIN = re.compile(r"(?:[A-Za-z_$][\w$]*\s*\.\s*)*$")
"""The receiver chain before a member's name (``client.api.``): part of the call."""
_AWAIT = re.compile(r"\bawait\s+$")
_ITERATED = re.compile(r"\bfor\s+[^=]+?\s+in\s+$|^\s*yield\s+from\s+$|(?:^|[\s(,\[])\*$")
_ASSIGNED = re.compile(r"^\s*(?P<target>[^=]+?)\s*(?::[^=]+)?=\s*$")
_NAME = r"[A-Za-z_]\w*"
_ONE_NAME = re.compile(rf"^{_NAME}$")
_SEVERAL = re.compile(rf"^[(\[]?\s*\*?{_NAME}\s*(?:,\s*\*?{_NAME}\s*)+,?\s*[)\]]?$|^{_NAME}\s*,$")
_ACCESS = re.compile(r"^\s*(?:\.\s*[A-Za-z_]|\[)")
_RETURNS = re.compile(r"\)\s*->\s*(.+?)\s*:?\s*$")
_RETURN_DETAIL = re.compile(r"^return type changed from (.+) to (.+)$")


def result_use(before: str, call: str) -> ResultUse | None:
    """How the code uses the result of the call whose ``(`` opens ``call`` (its arguments,
    then the rest of the line and the code lines after it); ``before`` is the line up to the
    called name, receiver included. None: unused, printed or passed on as a whole."""
    inside = balanced(call)
    if inside is None:
        return None
    after = call[len(inside) + 2 :]
    direct = _access(after)
    if direct is not None:
        return direct
    start = _AWAIT.sub("", _CHAIN.sub("", _PROMPT.sub("", before)))
    if _ITERATED.search(start):
        return ResultUse.iteration
    assigned = _ASSIGNED.match(start)
    if assigned is None or "==" in start or re.search(r"[()\[\]{}]\s*$", start):
        return None
    target = assigned.group("target").strip()
    if _SEVERAL.match(target):
        return ResultUse.unpacking
    if _ONE_NAME.match(target):
        return _use_of_name(target, after)
    return None


def _access(after: str) -> ResultUse | None:
    found = _ACCESS.match(after)
    if found is None:
        return None
    return ResultUse.subscript if found.group(0).strip() == "[" else ResultUse.attribute


def _use_of_name(name: str, code: str) -> ResultUse | None:
    """How the code after ``name = call(...)`` uses ``name``, up to where it is bound
    again."""
    escaped = re.escape(name)
    uses = [
        (ResultUse.attribute, rf"(?<![\w$.]){escaped}\s*\.\s*[A-Za-z_]"),
        (ResultUse.subscript, rf"(?<![\w$.]){escaped}\s*\["),
        (ResultUse.iteration, rf"\bfor\s+[^=\n]+?\s+in\s+{escaped}\s*(?::|\)|\]|$)"),
        (
            ResultUse.unpacking,
            rf"(?m)^\s*(?:>>>\s*)?[\w\s,()\[\]*]*,[\w\s,()\[\]*]*=\s*{escaped}\s*$",
        ),
    ]
    rebound = re.search(rf"(?m)^\s*(?:>>>\s*)?{escaped}\s*=(?!=)", code)
    scope = code[: rebound.start()] if rebound is not None else code
    best: tuple[int, ResultUse] | None = None
    for use, pattern in uses:
        found = re.search(pattern, scope, re.MULTILINE)
        if found is not None and (best is None or found.start() < best[0]):
            best = (found.start(), use)
    return best[1] if best is not None else None


def return_change(before: str | None, after: str | None, detail: str = "") -> str | None:
    """What changed in a function's return type, as the evidence says it
    (``return type `dict` -> `Response```), or None: no return type change that a caller
    using the result can see (unchanged, an annotation only added or removed, or unknown)."""
    stated = _RETURN_DETAIL.match(detail.strip())
    if stated is not None:
        return f"return type `{stated.group(1)}` -> `{stated.group(2)}`"
    old, new = _annotation(before), _annotation(after)
    if old is None or new is None or _normal(old) == _normal(new):
        return None
    return f"return type `{old}` -> `{new}`"


def _annotation(signature: str | None) -> str | None:
    """The return annotation of a one-line signature ``f(a) -> T`` (None: none written)."""
    if not signature or "(" not in signature:
        return None
    start = signature.index("(")
    inside = balanced(signature[start:])
    if inside is None:
        return None
    found = _RETURNS.match(signature[start + len(inside) + 1 :])
    return found.group(1) if found is not None else None


_TYPING_ALIASES = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "Type": "type"}


def _normal(annotation: str) -> str:
    """An annotation without spelling differences (``Optional[List[str]]`` is
    ``list[str]|None``, quotes and ``typing.`` dropped)."""
    text = re.sub(r"\s+", "", annotation).replace("typing.", "").replace("'", "").replace('"', "")
    text = re.sub(r"\b(List|Dict|Tuple|Set|Type)\b", lambda m: _TYPING_ALIASES[m.group(1)], text)
    optional = re.fullmatch(r"Optional\[(.+)\]", text)
    if optional is not None:
        text = f"{optional.group(1)}|None"
    return text
