"""What tree-sitter alone judges when no TypeScript compiler answers.

With a compiler, a type that merely reads differently (``DateType | number``
-> ``DateArg<DateType>``) is the compiler's to judge. Without one, two rules
carry most of what the compiler would find (measured on the npm release
pairs of bench/impact):

* a member of an interface, object type or class whose declared type now
  means something else is a change: consumers both read and write those
  members. Types are compared as sets of union members, with the package's
  own union aliases expanded and array spellings unified; types built from
  type parameters, generic aliases or object literals are left alone;
* a change spreads to subclasses: a class whose base class changed breaks
  with it, as the compiler says when it compares the class member by member.

Findings from these rules say "(tree-sitter, no compiler)" in their reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from prflow.analysis.js_exports import JsExport, read_module

NO_COMPILER = " (tree-sitter, no compiler)"
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_ANY = re.compile(r"(?<![\w$])any(?![\w$])")
_SPREADS_TO = frozenset({"class", "interface"})
_BUILTIN_WORDS = frozenset(
    {"readonly", "typeof", "keyof", "extends", "infer", "new", "in", "is", "asserts", "unique"}
)


def rewritten_members(
    before: dict[str, JsExport],
    after: dict[str, JsExport],
    local_aliases: tuple[dict[str, str], dict[str, str]] = ({}, {}),
) -> dict[str, list[str]]:
    """Per exported top name: members whose type now means something else, as reasons.

    Interface and object-type members (not methods, whose parameter types
    the compiler reads contravariantly) and class properties. Types are
    compared as sets of union members, with the package's own union aliases
    expanded and array spellings unified, so ``readonly T[]`` ->
    ``ReadonlyArray<T>`` or an alias inlined is no change.
    """
    old_aliases = {**local_aliases[0], **_aliases(before)}
    new_aliases = {**local_aliases[1], **_aliases(after)}
    found: dict[str, list[str]] = {}

    def differs(
        old_type: str, new_type: str, params: frozenset[str] = frozenset(), optional: bool = False
    ) -> bool:
        old_meaning = _meaning(old_type, old_aliases)
        new_meaning = _meaning(new_type, new_aliases)
        if optional:  # ``x?: T`` already admits undefined
            old_meaning, new_meaning = old_meaning - {"undefined"}, new_meaning - {"undefined"}
        if old_meaning == new_meaning:
            return False
        if any(
            "any" in m and _ANY.search(t)
            for m, t in ((old_meaning, old_type), (new_meaning, new_type))
        ):
            return False  # ``any`` is assignable to and from every type
        # A type parameter or a generic alias of the package: what it means is the compiler's.
        return not any(
            _WORD.findall(atom)[:1] and (_head(atom) in params or _head(atom) in aliases)
            for meaning, aliases in ((old_meaning, old_aliases), (new_meaning, new_aliases))
            for atom in meaning
            if "<" in atom or _head(atom) in params
        )

    for name, old in before.items():
        new = after.get(name)
        if new is None or new.kind != old.kind:
            continue
        if old.kind == "type" and old.members is None and new.members is None:
            if (
                _plain_union(old.type_text)
                and _plain_union(new.type_text)
                and differs(old.type_text or "", new.type_text or "")
            ):
                found.setdefault(name, []).append(f"`{old.type_text}` became `{new.type_text}`")
            elif lost := _lost_atoms(old, new, old_aliases, new_aliases):
                found.setdefault(name, []).append(f"no longer admits `{'`, `'.join(lost)}`")
            elif required := _now_requires(old, new, after):
                found.setdefault(name, []).append(f"now also requires `{required}`")
        elif old.kind in ("interface", "type") and old.members and new.members is not None:
            fresh = dict(new.members)
            params = _type_parameters(old) | _type_parameters(new)
            for member, text in old.members:
                now = fresh.get(member)
                if now is None or now == text or _is_method(text) or _is_method(now):
                    continue
                if "{" in text + now:
                    continue  # an object type: its own members would need comparing
                optional = _is_optional(text) and _is_optional(now)
                if differs(_type_of(text), _type_of(now), params, optional):
                    found.setdefault(name, []).append(f"member `{text}` became `{now}`")
        elif (
            old.kind == "property"
            and "." in name
            and old.type_text
            and new.type_text
            and differs(old.type_text, new.type_text)
        ):
            top, _, member = name.rpartition(".")
            found.setdefault(top, []).append(
                f"property `{member}: {old.type_text}` became `{member}: {new.type_text}`"
            )
    return found


def _lost_atoms(
    old: JsExport, new: JsExport, old_aliases: dict[str, str], new_aliases: dict[str, str]
) -> list[str]:
    """Named members of a union alias that the new union no longer has.

    Only unions of two or more members on both sides, a named member (not a
    type parameter, literal or function type) missing from the new union
    with its aliases expanded: ``Unsubscribable | Function | void`` ->
    ``Subscription | Unsubscribable | (() => void) | void`` lost ``Function``.
    """
    old_parts = split_union(_canonical(old.type_text or ""))
    new_parts = split_union(_canonical(new.type_text or ""))
    if len(old_parts) < 2 or len(new_parts) < 2:
        return []
    params = _type_parameters(old) | _type_parameters(new)
    now = _meaning(new.type_text or "", new_aliases)
    if "any" in now or any(_head(atom) in params for atom in now):
        return []
    heads = {_head(atom) for atom in now}
    lost = []
    for atom in sorted(_meaning(old.type_text or "", old_aliases)):
        head = _head(atom)
        named = _NAMED_ATOM.fullmatch(atom) and head not in params and head not in _BUILTIN_WORDS
        if named and atom not in now and head not in heads:
            lost.append(atom)
    return lost


def _now_requires(old: JsExport, new: JsExport, after: dict[str, JsExport]) -> str | None:
    """A part the alias's intersection gained that old values cannot have: a class or an
    interface of the package with required members (``Headers`` -> ``Headers & AxiosHeaders``).
    """
    old_heads = {_head(part) for part in _split_top(_canonical(old.type_text or ""), "&")}
    for part in _split_top(_canonical(new.type_text or ""), "&"):
        head = _head(part)
        target = after.get(head)
        if head in old_heads or target is None or head in _type_parameters(new):
            continue
        if target.kind == "class" and any(
            (key.startswith(f"{head}.") and not e.static and not e.optional and e.kind != "method")
            or (key.startswith(f"{head}.") and e.kind == "method" and not e.static)
            for key, e in after.items()
            if key.count(".") == 1 and not key.endswith(".constructor")
        ):
            return head
        if target.kind == "interface" and any(
            "(" not in text.split(":", 1)[0] and not text.split(":", 1)[0].rstrip().endswith("?")
            for _, text in target.members or ()
        ):
            return head
    return None


def _split_top(text: str, separator: str) -> list[str]:
    """Top-level parts of a type joined by ``separator`` (``&``), brackets kept whole."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([{<":
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[index - 1 : index] == "="):
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


_NAMED_ATOM = re.compile(r"[A-Za-z_$][\w$.]*(?:<.*>)?")
_PLAIN_ATOM = re.compile(r"(?:readonly )?[A-Za-z_$][\w$.]*(?:<.*>)?(?:\[\])*|'[^']*'|-?\d+|\{\}")


def _plain_union(text: str | None) -> bool:
    """A union of names, literals and arrays of them: what a text comparison can judge."""
    parts = split_union(_canonical(text or ""))
    return bool(parts) and all(_PLAIN_ATOM.fullmatch(part) for part in parts)


def _type_parameters(export: JsExport) -> frozenset[str]:
    """``interface § <A extends X, B = Y>`` (the body key): ``{A, B}``."""
    match = re.match(r"(?:export )?(?:declare )?(?:interface|type) § ?<", export.body)
    if match is None:
        return frozenset()
    depth, names, current = 1, [], ""
    for char in export.body[match.end() :]:
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
            if depth == 0:
                break
        elif char == "," and depth == 1:
            names.append(current)
            current = ""
            continue
        current += char if depth == 1 else ""
    names.append(current)
    return frozenset(w for n in names for w in _WORD.findall(n)[:1])


def _head(atom: str) -> str:
    words = _WORD.findall(atom)
    return words[0] if words else ""


def _aliases(exports: dict[str, JsExport]) -> dict[str, str]:
    """Exported type aliases by their short name (the last part of the surface key)."""
    return {
        name.rsplit(":", 1)[-1].rsplit(".", 1)[-1]: export.type_text
        for name, export in exports.items()
        if export.kind == "type" and export.type_text and export.members is None
    }


def _meaning(text: str, aliases: dict[str, str], depth: int = 0) -> frozenset[str]:
    """A type as the set of its union members, aliases to unions expanded (three levels)."""
    atoms: set[str] = set()
    for part in split_union(_canonical(text)):
        target = aliases.get(part)
        if target is not None and depth < 3 and "<" not in part:
            atoms |= _meaning(target, aliases, depth + 1)
        elif part:
            atoms.add(part)
    return frozenset(atoms)


def split_union(text: str) -> list[str]:
    """Top-level ``|`` members of a type (nested brackets and strings kept whole)."""
    parts: list[str] = []
    depth, quote, start = 0, "", 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "([{<":
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[index - 1 : index] == "="):
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    stripped = [part.strip() for part in parts]
    if len(stripped) == 1 and stripped[0].startswith("(") and stripped[0].endswith(")"):
        inner = stripped[0][1:-1]
        if split_union(inner) != [inner.strip()]:
            return split_union(inner)
    return [part for part in stripped if part]


def _canonical(text: str) -> str:
    """One spelling per type: comments dropped, quotes, spaces and array forms unified."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.DOTALL)
    text = text.replace('"', "'")
    text = re.sub(r"\s+", " ", text).strip().rstrip(";,")
    text = re.sub(r"\bReadonlyArray<([\w$.]+)>", r"readonly \1[]", text)
    text = re.sub(r"\bArray<([\w$.]+)>", r"\1[]", text)
    text = re.sub(r"\bunknown\b", "any", text)  # each accepts and is accepted by everything
    return re.sub(r"\s*([;,:{}()<>|&=?\[\]])\s*", r"\1", text)


def spread(
    before: dict[str, JsExport], after: dict[str, JsExport], changed: Iterable[str]
) -> dict[str, str]:
    """Exported classes extending a changed name (transitively), with the name they break through.

    ``changed`` are surface keys (``label:Name``) already found changed.
    """
    words: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    for name, export in before.items():
        top = _top(name)
        if top not in after:
            continue
        words.setdefault(top, set()).update(_words(export))
        if top != name and export.kind in ("method", "property") and not export.static:
            words[top].update(_mentions(_texts([export])))
        if top == name:
            kinds[top] = export.kind
    broken = {_short(name): name for name in changed}
    through: dict[str, str] = {}
    frontier = set(broken)
    while frontier:
        reached: set[str] = set()
        for top, mentioned in words.items():
            short = _short(top)
            if top in through or short in broken or kinds.get(top) not in _SPREADS_TO:
                continue
            cause = sorted((mentioned - {short}) & frontier)
            if cause:
                through[top] = cause[0]
                reached.add(short)
        for top in through:
            broken.setdefault(_short(top), top)
        frontier = reached
    return through


def _words(export: JsExport) -> set[str]:
    """The names a class takes its shape from: its ``extends``/``implements`` clause.

    Only classes spread a change: the compiler compares a class member by
    member, so what it inherits counts as its own. An interface, alias or
    variable that mentions a changed type is, measured against the
    compiler, as often compatible as not.
    """
    if export.kind == "interface":
        return {_base_name(base) for base in export.bases} - _BUILTIN_WORDS
    if export.kind != "class":
        return set()
    return set(_WORD.findall(export.type_text or "")) - _BUILTIN_WORDS - {"extends", "implements"}


_NARROWING = frozenset({"Omit", "Pick", "Partial", "Required", "Readonly"})


def _base_name(base: str) -> str:
    """The type an interface takes its members from: ``Omit<Config<D>, 'x'>`` -> ``Config``.

    Type arguments of any other base (``Promise<Response>``) are not its members.
    """
    head = _head(base)
    if head in _NARROWING and "<" in base:
        return _head(base.split("<", 1)[1])
    return head


def _is_method(text: str) -> bool:
    head = text.split(":", 1)[0]
    return "(" in head or text.startswith(("(", "new ", "<"))


def _type_of(text: str) -> str:
    """``name?: T`` -> ``T``."""
    _, colon, rest = text.partition(":")
    return rest if colon else text


def _is_optional(text: str) -> bool:
    return text.partition(":")[0].rstrip().endswith("?")


def _top(name: str) -> str:
    label, _, rest = name.rpartition(":")
    top = rest.split(".", 1)[0]
    return f"{label}:{top}" if label else top


def _short(name: str) -> str:
    return name.split(":", 1)[-1].split(".", 1)[0]


def hidden_pairs(
    exported: Iterable[str],
    hidden: tuple[dict[str, list[JsExport]], dict[str, list[JsExport]]],
    local_aliases: tuple[dict[str, str], dict[str, str]] = ({}, {}),
) -> tuple[dict[str, JsExport], dict[str, JsExport]]:
    """Declarations no consumer of the old release can name, on both sides, keyed like names.

    Those found on one side only are left out: what replaced them is judged
    through the exported names that use them.
    """
    shorts = {_short(name) for name in exported}
    sides: tuple[dict[str, JsExport], dict[str, JsExport]] = ({}, {})
    for side, declared, aliases in zip(sides, hidden, local_aliases, strict=True):
        for name, items in declared.items():
            if name not in shorts and all(name in h for h in hidden):
                side.update({item.name: item for item in items})
        for name, text in aliases.items():
            if name not in shorts and name not in side and all(name in a for a in local_aliases):
                side[name] = JsExport(name, "type", 0, f"type {name} = {text}", type_text=text)
    return sides


def through_hidden(
    before: dict[str, JsExport],
    after: dict[str, JsExport],
    hidden: tuple[dict[str, JsExport], dict[str, JsExport]],
    changed_hidden: Iterable[str],
    unique_symbols: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """Exported names that use a changed declaration no consumer can name, with that name.

    A break in an exported declaration belongs to it (its users are reported
    through it only by a compiler). A declaration the package does not
    export (an unexported alias or class, the instance side of an ``export =``
    class) cannot carry the break, so it lands on every exported name whose
    text uses it, as the compiler says when it compares those names.
    ``changed_hidden`` are the hidden names judged changed by the same rules
    as exported ones.

    A ``unique symbol`` constant of the package is a type of its own in each
    release: whatever uses it, directly or through other names, exported or
    not, is unrelated to its old self.
    """
    uses: dict[str, set[str]] = {}
    for name, export in hidden[0].items():
        if _top(name) in hidden[1]:
            uses.setdefault(_short(name), set()).update(_mentions(_texts([export])))
    changed = set(changed_hidden)
    while True:  # a hidden declaration using a changed one changes with it
        more = {name for name, used in uses.items() if name not in changed and used & changed}
        if not more:
            break
        changed |= more
    words: dict[str, set[str]] = {}
    for name, export in before.items():
        if _short(name) != "default" and _top(name) in after:
            words.setdefault(_top(name), set()).update(_mentions(_texts([export])))
    found = {top: sorted(used & changed)[0] for top, used in words.items() if used & changed}
    tainted = set(unique_symbols)
    while tainted:  # through every name, exported or not
        through: dict[str, str] = {
            name: sorted(used & tainted)[0]
            for name, used in [*uses.items(), *((_short(t), u) for t, u in words.items())]
            if name not in tainted and used & tainted
        }
        if not through:
            break
        tainted |= set(through)
        for top in words:
            if _short(top) in through:
                found.setdefault(top, through[_short(top)])
    return dict(sorted(found.items()))


def _texts(items: Iterable[JsExport]) -> list[str]:
    """What a declaration says, one canonical text per part, in a stable order."""
    return sorted(
        _canonical(" ".join([e.declaration, e.type_text or "", *[t for _, t in e.members or ()]]))
        for e in items
    )


def _mentions(texts: Iterable[str]) -> set[str]:
    return {word for text in texts for word in _WORD.findall(text)} - _BUILTIN_WORDS


def through_removed(before: dict[str, JsExport], after: dict[str, JsExport]) -> dict[str, str]:
    """Exported names whose text changed and used a type the package no longer exports.

    A function or function type rewritten around a name that is gone
    (``PreloadedState<S>`` dropped, its role taken by new type parameters) is
    rewritten in meaning, not only in spelling.
    """
    gone = {_short(name) for name in before if _top(name) not in after and name == _top(name)}
    if not gone:
        return {}
    old_parts: dict[str, list[JsExport]] = {}
    new_parts: dict[str, list[JsExport]] = {}
    for side, surface in ((old_parts, before), (new_parts, after)):
        for name, export in surface.items():
            side.setdefault(_top(name), []).append(export)
    found: dict[str, str] = {}
    for top, parts in sorted(old_parts.items()):
        if top not in new_parts:
            continue
        main = next((e for e in parts if e.name == top), None)
        if main is None or not (main.is_callable or "=>" in (main.type_text or "")):
            continue  # a signature: the removed type was a parameter's or the result's
        now = " ".join(_texts(new_parts[top]))
        used = {
            word for word in _mentions(_texts(parts)) & gone if not _inlined(before.get(word), now)
        }
        if used and _texts(parts) != _texts(new_parts[top]):
            found[top] = sorted(used)[0]
    return found


def _inlined(alias: JsExport | None, text: str) -> bool:
    """The removed alias's own text now stands where it was used (``Func0<R>`` -> ``() => R``)."""
    if alias is None or alias.kind != "type" or not alias.type_text:
        return False
    return _canonical(alias.type_text) in text


def through_nested(
    before: dict[str, JsExport], after: dict[str, JsExport], changed: Iterable[str]
) -> dict[str, str]:
    """Exported names that use a changed type nested in a namespace (``Seq.Indexed<T>``).

    Consumers name it only through its namespace, so, like an unexported
    declaration, it does not carry the break for what uses it: the compiler
    reports each user.
    """
    nested = set()
    for name in changed:
        key = name.split(":", 1)[-1]
        while "." in key:
            export = before.get(key)
            if export is not None and export.kind in ("interface", "type", "class"):
                nested.add(key)
            key = key.rsplit(".", 1)[0]
    tops = {_short(name) for name in changed}
    inner = {
        key: _words(export)
        for key, export in before.items()
        if ":" not in key and "." in key and export.kind in ("interface", "class")
    }
    while True:  # a nested interface or class extending a changed one changes with it
        known = tops | nested | {key.rsplit(".", 1)[-1] for key in nested}
        more = {key for key, bases in inner.items() if key not in nested and bases & known}
        if not more:
            break
        nested |= more
    if not nested:
        return {}
    pattern = re.compile(
        r"(?<![\w$.])(" + "|".join(re.escape(n) for n in sorted(nested)) + r")(?![\w$])"
    )
    found: dict[str, str] = {}
    for name, export in sorted(before.items()):
        top = _top(name)
        if top in found or top not in after or ":" in name:
            continue
        for text in _texts([export]):
            match = pattern.search(text)
            if match and not match.group(1).startswith(f"{top}."):
                found[top] = match.group(1)
                break
    return found


def retyped_values(
    before: dict[str, JsExport], after: dict[str, JsExport], declared: dict[str, JsExport]
) -> dict[str, str]:
    """Exported variables whose object type now comes from an interface that reads less.

    ``const config: { Promise: P; … }`` -> ``const config: GlobalConfig``: the
    interface (exported or not, in ``declared`` by name) is compared with the
    old object type as a reader sees it: a member gone or made optional.
    """
    found: dict[str, str] = {}
    for name, old in sorted(before.items()):
        new = after.get(name)
        if old.kind != "variable" or new is None or new.kind != "variable" or "." in name:
            continue
        old_text, new_text = (old.type_text or "").strip(), (new.type_text or "").strip()
        target = declared.get(new_text)
        if not old_text.startswith("{") or target is None or target.members is None:
            continue
        now = dict(target.members)
        for member, text in _object_members(old_text):
            current = now.get(member)
            if current is None:
                found[name] = f"member `{member}` of its type was removed"
                break
            if not _is_optional(text) and _is_optional(current):
                found[name] = f"member `{member}` of its type became optional"
                break
    return found


def _object_members(text: str) -> tuple[tuple[str, str], ...]:
    """The members of an object type's text, read by the same extractor as interfaces."""
    alias = read_module("object.d.ts", f"export type Object = {text};\n").exports.get("Object")
    return alias.members or () if alias is not None else ()
