"""How a doc line names a changed symbol: code-like mentions count, plain words in prose don't.

A symbol called ``impact`` or ``review`` is also an English word, and a command
line such as ``prflow review --repo .`` is code that names no Python function.
So a *vague* name (a plain lowercase word, or a common or very short one)
counts only where it reads as an identifier: called (``review(``), qualified
(``cli.review``, ``ctx.invoke``), imported, decorated, alone in a code span, or
on a line naming one of the parameters that changed. Identifier-shaped names
(``open_session``, ``EnvironBuilder``) cannot be mistaken for prose and count
anywhere. Inside code, string literals and comments are not code: ``'text/html;
charset=utf-8'`` names no ``charset`` attribute.

A line naming a symbol whose signature changed is *strong* evidence when it
calls the symbol in a way that can see the change (:mod:`prflow.docsync.calls`:
it passes a changed parameter, or lacks one now required) or names a changed
parameter, and the evidence says which parameter; it is a *reference* otherwise
(``f('x')`` after a keyword-only parameter changed still works, and
``:meth:`X.y``` still points at the right thing). A local of the same name
(``random_state = ...``) is no use of a removed top-level name, and a dotted path
naming another owner (``connectivity.utils``) is no use of a member. A name the doc's
own code binds (``random_state = ...``, ``def f(random_state=None)``) is that doc's
variable wherever it stands bare. An entry of a reST ``.. autosummary::`` list names an
API object, plain word or not: ``info`` listed there fails to import once ``info`` is gone.
Sphinx roles that name no API object (``:term:``, ``:ref:``, ``:doc:``, ...) are not code,
a bare ``:meth:``/``:attr:`` names a member of the class at hand (no top-level name), and a
``.. method::`` inside another class's ``.. class::`` directive declares that class's member.
A doctest's output (a repr, a traceback) calls nothing, a name the doc imports as a module
(``import soupsieve as sv``) is no class instance, and prose about one parameter that stays
("the document_models argument") is not about the ones that changed.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

from prflow.analysis.stale_docs import _COMMON_WORDS, _doc_lines, _python_module, code_spans
from prflow.analysis.stale_docs import _LineContext as LineContext
from prflow.docsync.calls import CallArguments, Signature, balanced, parameters, seen_changes
from prflow.docsync.results import ResultUse, result_use

_PLAIN_WORD = re.compile(r"[a-z]+")
_CODE_DIRECTIVE = re.compile(
    r"^(\s*)\.\.\s+(?:code-block|code|sourcecode|doctest|testcode|testsetup|testoutput"
    r"|ipython|jupyter-execute)::"
)
_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")
_COMMENT = re.compile(r"(?:^|\s)#.*$")
_IMPORT = re.compile(r"^\s*(?:>>>\s*)?(?:from\s+[\w.]+\s+)?import\s")
_OBJECT_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:auto\w+|py:\w+)::\s+(?:[\w.]+\.)?([\w$]+)\s*(?:\(|$)"
)
"""``.. autofunction:: pkg.name``: the directive's object is an identifier."""
_TOP_LEVEL_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:py:)?(?:auto)?(?:function|module)::\s+[\w$]+\s*(?:\(|$)"
)
"""``.. autofunction:: real_roots``: a bare name declared as a function or module, so it is
nobody's member."""
_ABOUT_PARAMETERS = re.compile(
    r"\b(?:arguments?|parameters?|params|kwargs|keyword|signature)\b", re.IGNORECASE
)
"""Prose about a callable's parameters: with the symbol named, the line describes them."""
_RECEIVERS = frozenset({"self", "cls", "this"})
_NOT_OBJECT_ROLE = re.compile(
    r":(?:\w+:)?(?:term|ref|doc|numref|keyword|option|envvar|pep|rfc|download|abbr|guilabel"
    r"|kbd|program|file|command|menuselection|samp|mailheader|mimetype|dfn|math):`[^`]*`"
)
"""Sphinx roles whose target is no API object: ``:term:`iterable``` is a glossary entry."""
_TITLED_ROLE = re.compile(r"(:(?:[\w-]+:)?[\w-]+:`)[^`<]*<([^`>]+)>`")
"""A Sphinx role with an explicit title, ``:role:`title <target>```: only the target is
referenced."""
_MEMBER_ROLE = re.compile(r":(?:py:)?(?:meth|attr):`~?[\w$]+(?:\(\))?`")
"""``:meth:`close``` with no dot: a member of the class the text is about."""
_DEFINES = re.compile(r"\b(?:def|class)\s+$")
_SIGNATURE_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:py:)?(?:auto)?"
    r"(?:method|function|classmethod|staticmethod|class|exception|decorator)::"
)
"""A directive that declares an object; its parentheses are a signature, never a call (an
autodoc ``.. autoclass:: pytest.OptionGroup()`` hides the constructor's parameters)."""


class Strength(IntEnum):
    """How much a line says about a symbol: nothing, a passing name, a name in code, a call."""

    none = 0
    prose = 1
    reference = 2
    strong = 3


def is_common(name: str) -> bool:
    return len(name) <= 3 or name.lower() in _COMMON_WORDS


def is_vague(name: str) -> bool:
    """A name that is also an ordinary word, or an all-capitals one (``NULL``, ``JSON``: SQL
    and acronyms in prose): it counts only where it reads as code."""
    return (
        is_common(name)
        or _PLAIN_WORD.fullmatch(name) is not None
        or (name.isalpha() and name.isupper())
    )


@functools.lru_cache(maxsize=4096)
def word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$-]){re.escape(name)}(?![\w$-])")


@functools.lru_cache(maxsize=4096)
def _call(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$-]){re.escape(name)}\((?!e?s\))")  # not "file(s)"


def doc_lines(text: str, doc: str) -> Iterator[tuple[int, str, bool]]:
    """(number, line, in code) like impact's reader, plus the bodies of reST code directives
    (``.. code-block:: python``, ``.. doctest::``), which do not end in ``::``."""
    rst = doc.lower().endswith(".rst")
    opened_at: int | None = None
    for number, line, fenced in _doc_lines(text, doc):
        if rst and not fenced:
            stripped = line.strip()
            indent = len(line) - len(line.lstrip())
            if opened_at is not None and stripped:
                if indent > opened_at:
                    yield number, line, True
                    continue
                opened_at = None
            directive = _CODE_DIRECTIVE.match(line)
            if directive is not None:
                opened_at = len(directive.group(1))
        yield number, line, fenced


_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=]*)?=(?!=)")
_LOOP = re.compile(r"\bfor\s+\(?([A-Za-z_][\w\s,]*?)\)?\s+in\b")
_ALIAS = re.compile(r"\bas\s+([A-Za-z_]\w*)")
_DEF = re.compile(r"\b(?:async\s+)?def\s+\w+\s*\(([^)]*)")
_AUTOSUMMARY = re.compile(r"^(\s*)\.\.\s+autosummary::")
_ENTRY = re.compile(r"^\s+~?([A-Za-z_][\w.]*)\s*$")


def bound_names(code_lines: Iterable[str]) -> frozenset[str]:
    """Names a doc's own code binds: assigned, loop targets, ``as`` aliases, parameters of
    the functions it defines. Such a name, bare, is the doc's variable, not an API object."""
    found: set[str] = set()
    for line in code_lines:
        code = bare_code(_PROMPT.sub("", line))
        assigned = _ASSIGNED.match(code)
        if assigned is not None:
            found.update(n.strip() for n in assigned.group(1).split(","))
        for loop in _LOOP.finditer(code):
            found.update(n.strip() for n in loop.group(1).split(",") if n.strip())
        found.update(alias.group(1) for alias in _ALIAS.finditer(code))
        for define in _DEF.finditer(code):
            for param in define.group(1).split(","):
                name = re.match(r"\s*\**\s*([A-Za-z_]\w*)", param)
                if name is not None:
                    found.add(name.group(1))
    return frozenset(found - {"self", "cls"})


_MODULE_IMPORT = re.compile(r"^\s*(?:>>>\s*)?import\s+(.+)$")
_IMPORT_SOURCE = re.compile(r"^\s*(?:>>>\s*)?from\s+([\w.]+)")


def _names_a_module(code: str, position: int) -> bool:
    """Whether ``position`` in an import statement is in a module's dotted name (or an
    alias): anywhere in ``import a.b as c``, the ``a.b`` of ``from a.b import c``."""
    if _MODULE_IMPORT.match(code):
        return True
    source = _IMPORT_SOURCE.match(code)
    return source is not None and source.start(1) <= position < source.end(1)


def module_aliases(code_lines: Iterable[str]) -> frozenset[str]:
    """Names a doc's own code binds to a module: ``import soupsieve as sv`` binds ``sv``,
    ``import json`` binds ``json``. ``sv.comments(...)`` then calls a module's function,
    never a member of a class (``from x import y`` may import a class: not counted)."""
    found: set[str] = set()
    for line in code_lines:
        imported = _MODULE_IMPORT.match(bare_code(line))
        if imported is None:
            continue
        for part in imported.group(1).split(","):
            alias = re.fullmatch(r"\s*([\w.]+)(?:\s+as\s+(\w+))?\s*", part)
            if alias is not None:
                found.add(alias.group(2) or alias.group(1).split(".", 1)[0])
    return frozenset(found)


def doctest_output(lines: Iterable[tuple[int, str, bool]]) -> frozenset[int]:
    """Line numbers of a doctest session's output: lines without a ``>>>``/``...`` prompt
    after a prompted line, up to a blank line (a reST doctest block needs no ``::``, so its
    output need not read as code). Output shows a value (a repr, a traceback):
    ``Attribute(name='x', ...)`` there calls nothing."""
    found: set[int] = set()
    session = False
    for number, line, _code in lines:
        if not line.strip():
            session = False
        elif _PROMPT.match(line):
            session = True
        elif session:
            found.add(number)
    return frozenset(found)


def autosummary_entries(lines: Iterable[tuple[int, str, bool]]) -> frozenset[int]:
    """Line numbers of the entries of reST ``.. autosummary::`` lists (``info``,
    ``~pkg.Graph.copy``): each names an API object Sphinx imports."""
    found: set[int] = set()
    opened_at: int | None = None
    for number, line, _code in lines:
        stripped = line.strip()
        if opened_at is not None and stripped:
            indent = len(line) - len(line.lstrip())
            if indent <= opened_at:
                opened_at = None
            elif _ENTRY.match(line):
                found.add(number)
        directive = _AUTOSUMMARY.match(line)
        if directive is not None:
            opened_at = len(directive.group(1))
    return frozenset(found)


_CLASS_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(?:py:)?(?:auto)?(?:class|exception)::\s+([\w.]+)")
_MEMBER_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:py:)?(?:auto)?(?:method|attribute|classmethod|staticmethod|property)::"
)


def class_scopes(lines: Iterable[tuple[int, str, bool]]) -> dict[int, str]:
    """Line number -> the class a reST ``.. class:: X`` directive around it documents (its
    body is indented deeper): there ``.. method:: close()`` declares ``X.close``."""
    found: dict[int, str] = {}
    opened: tuple[int, str] | None = None
    for number, line, _code in lines:
        if opened is not None and line.strip():
            if len(line) - len(line.lstrip()) <= opened[0]:
                opened = None
            else:
                found[number] = opened[1]
        directive = _CLASS_DIRECTIVE.match(line)
        if directive is not None:
            opened = (len(directive.group(1)), directive.group(2).rsplit(".", 1)[-1])
    return found


_CURRENT_MODULE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:current)?module::\s+([\w.]+)\s*$")


def current_modules(lines: Iterable[tuple[int, str, bool]]) -> dict[int, str]:
    """Line number -> the module a reST ``.. currentmodule::`` or ``.. module::`` above it
    set: Sphinx looks a bare ``:func:`histogram``` up there first."""
    found: dict[int, str] = {}
    current: str | None = None
    for number, line, _code in lines:
        directive = _CURRENT_MODULE.match(line)
        if directive is not None:
            current = directive.group(1)
        elif current is not None:
            found[number] = current
    return found


def bare_code(code: str) -> str:
    """Code without its string literals and comments."""
    return _COMMENT.sub("", _STRING.sub('""', code))


def changed_params(before: str | None, after: str | None) -> list[str]:
    """Parameters added, removed, whose default changed or that can no longer be passed by
    keyword (``self`` and ``cls`` aside; a parameter that became keyword-only still takes
    the same keyword); empty when either signature does not parse."""
    old, new = _params(before), _params(after)
    if old is None or new is None:
        return []
    names = set(old) | set(new)
    changed = {n for n in names if _keyword_use(old.get(n)) != _keyword_use(new.get(n))}
    return sorted(changed - {"self", "cls"})


def _keyword_use(param: tuple[str, str | None] | None) -> tuple[bool, str | None] | None:
    """What a caller passing the parameter by keyword sees: whether it may, and its default."""
    if param is None:
        return None
    kind, default = param
    return kind not in ("positional-only", "*"), default


def _params(signature: str | None) -> dict[str, tuple[str, str | None]] | None:
    """Name -> (kind, default) of a Python signature ``name(a, b=1, *, c) -> T``."""
    spec = parameters(signature)
    if spec is None:
        return None
    found: dict[str, tuple[str, str | None]] = {}
    positional = [*spec.posonlyargs, *spec.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(spec.defaults))
    defaults += spec.defaults
    for arg, default in zip(positional, defaults, strict=True):
        kind = "positional-only" if arg in spec.posonlyargs else "positional"
        found[arg.arg] = (kind, ast.unparse(default) if default is not None else None)
    for arg, kw_default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
        found[arg.arg] = ("keyword", ast.unparse(kw_default) if kw_default is not None else None)
    if spec.vararg is not None:
        found[spec.vararg.arg] = ("*", None)
    if spec.kwarg is not None:
        found[spec.kwarg.arg] = ("**", None)
    return found


def names_its_module(symbol: str, source: str | None) -> bool:
    """Whether ``symbol`` is its source file's module, or the tail of it (impact names
    ``examples/app/simple_page/simple_page.py`` the module ``simple_page.simple_page``)."""
    module = _python_module(source or "") or ""
    return bool(module) and f".{module}".endswith(f".{symbol}")


def _declared_names(inside: str) -> set[str]:
    """The parameter names a declared signature lists: read as Python first, then, for
    Sphinx's ``f(a[, b])`` or ``<object>`` defaults that Python cannot read, by commas."""
    spec = _params(f"f({inside})")
    if spec is not None:
        return set(spec)
    return {re.split(r"[:=]", part, maxsplit=1)[0].strip(" *[]") for part in inside.split(",")}


@dataclass(frozen=True)
class Mention:
    """How strongly a line names a symbol, and the changed parameters it passes or names."""

    strength: Strength
    seen: tuple[str, ...] = ()
    result: ResultUse | None = None
    """For a changed return type: how the line uses the call's result (None: it does not)."""


_NONE = Mention(Strength.none)


@dataclass(frozen=True)
class SymbolMentions:
    """The ways a doc line can name one symbol, and how strongly each says it."""

    name: str
    member: str
    """The name as written bare: the last dotted part, or a constructor's class."""
    owner: str | None
    """The class of a member (``Context`` for ``Context.invoke``)."""
    qualifiers: frozenset[str]
    """Module parts that may qualify a top-level name (``cli.review``)."""
    params: tuple[str, ...]
    constructor: bool
    vague: bool
    before: Signature | None = None
    after: Signature | None = None
    """How callers passed arguments at base and pass them at head (both, or neither known)."""
    module: bool = False
    """The symbol is a module (its source file is the module of that name)."""
    returns: bool = False
    """Its return type changed: a call whose result the line uses can see that."""
    modules: frozenset[str] = frozenset()
    """Names the doc at hand binds to modules (:func:`module_aliases`): no member's receiver."""
    moved_from: str | None = None
    """The module a still-defined name left: only a mention through it is stale."""
    shared: bool = False
    """A removed member another class still defines: only a receiver naming its class (no
    bare, chained or ``self`` one) reaches the removed one."""
    home: str = ""
    """The dotted module the symbol is defined in (``scipy.stats.stats``), if known."""

    @classmethod
    def of(
        cls,
        name: str,
        source: str | None = None,
        params: tuple[str, ...] = (),
        signatures: tuple[str | None, str | None] = (None, None),
        *,
        returns: bool = False,
        moved: bool = False,
        an_object: bool = False,
    ) -> SymbolMentions | None:
        """None when the name is too vague to look for (other dunders, a common class).
        ``signatures``: impact's renderings at base and head, for a changed signature;
        ``an_object``: impact reported a function, class or attribute, so no module even
        where it is named like its own (statsd 3.0 dropped ``statsd.statsd``, an instance
        its package defined)."""
        parts = name.split(".")
        last = parts[-1]
        constructor = False
        if last.startswith("__") and last.endswith("__"):
            if last != "__init__" or len(parts) < 2 or is_common(parts[-2]):
                return None  # other dunders are named by their operators, not their names
            parts, last, constructor = parts[:-1], parts[-2], True
        module = _python_module(source or "") or ""
        bound = constructor or len(parts) > 1
        before = Signature.parse(signatures[0], bound=bound)
        after = Signature.parse(signatures[1], bound=bound)
        known = before is not None and after is not None
        return cls(
            name=".".join(parts),
            member=last,
            owner=parts[-2] if len(parts) > 1 else None,
            qualifiers=frozenset(p for p in module.split(".") if p),
            params=params,
            constructor=constructor,
            vague=not constructor and is_vague(last),
            before=before if known else None,
            after=after if known else None,
            module=not an_object and names_its_module(".".join(parts), source),
            returns=returns,
            moved_from=module if moved and module and len(parts) == 1 else None,
            shared=moved and len(parts) > 1 and not constructor,
            home=module,
        )

    def strength(self, line: LineContext, in_code: bool, following: str = "") -> Strength:
        return self.judge(line, in_code, following).strength

    def judge(
        self,
        line: LineContext,
        in_code: bool,
        following: str = "",
        *,
        bound: frozenset[str] = frozenset(),
        listed: bool = False,
        scope: str | None = None,
        modules: frozenset[str] = frozenset(),
        output: bool = False,
        current_module: str | None = None,
    ) -> Mention:
        """How strongly ``line`` names the symbol (``in_code``: the whole line is code;
        ``following``: the code after it, where a call's arguments may go on; ``bound``:
        names the doc's own code binds; ``listed``: the line is an autosummary entry;
        ``scope``: the class whose reST directive the line is in; ``modules``: names the
        doc's code binds to modules, no receiver of a member; ``output``: the line is a
        doctest's output, where a call is at most a reference; ``current_module``: the
        module a reST ``currentmodule`` directive set for the line)."""
        if self.member not in line.text:
            return _NONE  # every way of naming it spells its name
        if self.moved_from is not None and not self._through_old_module(line.text):
            return _NONE  # ``collect(expr)`` works as before, imported from where it still is
        judging = self
        if modules and self._is_member:
            judging = dataclasses.replace(self, modules=modules)
        found = judging._judge(
            line,
            in_code,
            following,
            bound=bound,
            listed=listed,
            scope=scope,
            current_module=current_module,
        )
        if output and found.strength is Strength.strong:
            return Mention(Strength.reference)
        return found

    def _judge(
        self,
        line: LineContext,
        in_code: bool,
        following: str,
        *,
        bound: frozenset[str],
        listed: bool,
        scope: str | None,
        current_module: str | None = None,
    ) -> Mention:
        if listed:
            return self._listed(line.text.strip())
        if self._is_member and _TOP_LEVEL_DIRECTIVE.match(line.text):
            return _NONE  # ``.. autofunction:: real_roots``: a function, not a method
        if scope is not None and self._declares_other(line.text, scope):
            return _NONE
        if not in_code and ":`" in line.text:
            line = self._without_roles(line, current_module)
            if self.member not in line.text:
                return _NONE
        if not in_code:
            line = _without_titles_and_links(line)
            if self.member not in line.text:
                return _NONE
        if self.module:
            line = _without_non_modules(line, self.member)
            if self.member not in line.text:
                return _NONE
        if not self.constructor and self.member in bound:
            # a module's bare name too: flask's ``simple_page = Blueprint(...)`` is the doc's
            # variable, not the removed example module ``simple_page.simple_page``; and a
            # member's: tornado's ``io_loop = IOLoop.current()`` is no ``TCPClient.io_loop``
            line = self._without_local(line)
            if self.member not in line.text:
                return _NONE
        codes = [bare_code(c) for c in line.code] if self.vague else list(line.code)
        prose = line.text if in_code else _without_spans(line.text)
        texts = [*codes, prose]
        tail = "\n" + following if in_code and following else ""
        called = max((self._called(t, tail) for t in texts), key=lambda m: m.strength)
        if called.strength is Strength.strong:
            return called
        named = called.strength
        qualified = "." in self.name and any(word(self.name).search(t) for t in texts)
        if qualified or any(self._as_identifier(c, whole=not in_code) for c in codes):
            named = Strength.reference
        elif not (in_code or self.vague or self.constructor) and word(self.member).search(prose):
            named = Strength.prose
        if named >= Strength.reference:
            about = self._about_parameters(codes, prose, in_code=in_code)
            if about is not None:
                return Mention(Strength.strong, about)
        return Mention(named)

    def _through_old_module(self, text: str) -> bool:
        """``simplify.simplify.collect``, ``from sympy.simplify.simplify import collect`` or
        an ``.. autofunction::`` of it: the line reaches the name through the module it left
        (``sympy.simplify.collect`` reaches it through the package, which still has it)."""
        member = re.escape(self.member)
        dotted = rf"(?<![\w$.])([\w.]+)\.{member}(?![\w$])"
        imported = rf"\bfrom\s+([\w.]+)\s+import\b[^\n]*(?<![\w$.]){member}(?![\w$])"
        return any(
            self._names_old_module(match.group(1))
            for pattern in (dotted, imported)
            for match in re.finditer(pattern, text)
        )

    def _names_old_module(self, chain: str) -> bool:
        """Whether a dotted ``chain`` is the module the name left, in full or by its tail,
        and no package above it that may still have the name."""
        assert self.moved_from is not None
        old = self.moved_from.split(".")
        parts = chain.split(".")
        if parts != old[-len(parts) :]:
            return False
        packages = (old[:cut] for cut in range(1, len(old)))
        return not any(package[-len(parts) :] == parts for package in packages)

    def _listed(self, entry: str) -> Mention:
        """An autosummary entry: it names this object when its last part is the name and,
        for a member, the part before it is the class (a bare member is some class's)."""
        parts = entry.lstrip("~").split(".")
        if parts[-1] != self.member:
            return _NONE
        if self._is_member:
            return Mention(Strength.reference) if parts[-2:-1] == [self.owner] else _NONE
        if len(parts) > 1 and self.qualifiers and parts[-2] not in self.qualifiers:
            return _NONE  # ``other_module.info``
        return Mention(Strength.reference)

    def _declares_other(self, text: str, scope: str) -> bool:
        """``.. method:: open_spider(spider)`` inside ``.. class:: StatsCollector``: another
        class's member of the same name, not this one."""
        if self.owner is None or self.constructor or not _MEMBER_DIRECTIVE.match(text):
            return False
        return scope != self.owner and not _names_owner(scope, self.owner)

    def _without_roles(self, line: LineContext, current_module: str | None = None) -> LineContext:
        """The line without the roles that cannot name this symbol: glossary terms, labels,
        documents and options never; a bare ``:meth:``/``:attr:`` no top-level name; a role
        with a title names its target only (``:signal:`open_spider <spider_opened>``` is
        the ``spider_opened`` signal); a bare role under another module of the package
        (``:func:`histogram``` under ``.. currentmodule:: scipy.ndimage`` is not
        ``scipy.stats.histogram``)."""
        text = _NOT_OBJECT_ROLE.sub(" ", _TITLED_ROLE.sub(r"\1\2`", line.text))
        if self.owner is None and not self.constructor:
            text = _MEMBER_ROLE.sub(" ", text)
        if current_module is not None and self._sibling_module(current_module):
            bare = rf":(?:py:)?\w+:`~?{re.escape(self.member)}(?:\(\))?`"
            text = re.sub(bare, " ", text)
        if text == line.text:
            return line
        spans = code_spans(text)
        return dataclasses.replace(line, text=text, code=spans)

    def _sibling_module(self, module: str) -> bool:
        """Whether ``module`` is another module of the symbol's package: not the one that
        defines it, nor a package above it (which may re-export it), nor another project's."""
        if not self.home or self._is_member:
            return False
        home, other = self.home.split("."), module.split(".")
        return home[0] == other[0] and home[: len(other)] != other

    def _without_local(self, line: LineContext) -> LineContext:
        """The line with bare uses of the name blanked: the doc binds a variable of that
        name, so only a qualified, imported or decorated use can be the API object."""
        if _IMPORT.match(line.text):
            return line
        name = re.escape(self.member)
        # ``@simple_page.route``: a method of the local, where ``@review`` is the function
        bare = re.compile(rf"(?<![\w$.@-]){name}(?![\w$-])|(?<=@){name}(?=\.)")
        blank = "_" * len(self.member)
        return dataclasses.replace(
            line,
            text=bare.sub(blank, line.text),
            code=tuple(bare.sub(blank, c) for c in line.code),
        )

    def _called(self, text: str, tail: str) -> Mention:
        """A call: strong when it can see the change (it passes a changed parameter, or
        lacks one now required; for a changed return type, it uses the result's shape),
        naming what it sees; a reference when it cannot."""
        best = _NONE
        if _SIGNATURE_DIRECTIVE.match(text):
            return self._declared(text)
        for match in _call(self.member).finditer(text):
            if _DEFINES.search(text[: match.start()]):
                continue  # ``def from_crawler(cls, crawler)``: the reader's own method
            if not self._reached_by(text[: match.start()]):
                continue
            call = text[match.end() - 1 :] + tail
            seen = self._sees_change(call)
            used = result_use(text[: match.start()], call) if self.returns else None
            if used is not None:
                return Mention(Strength.strong, seen or (), used)
            if seen is not None and (seen or not self.returns):
                candidate = Mention(Strength.strong, seen)
                if not self.returns:
                    return candidate
                best = max(best, candidate, key=lambda m: m.strength)
                continue
            best = max(best, Mention(Strength.reference), key=lambda m: m.strength)
        return best

    def _declared(self, text: str) -> Mention:
        """``.. method:: name(args)`` declares, it does not call: it is wrong where the
        signature it writes lists a changed parameter (pymongo's ``.. autoclass:: Cursor(...,
        manipulate=True)``), and names nothing otherwise."""
        match = _call(self.member).search(text)
        if match is None:
            return _NONE
        owner = _receiver(text[: match.start()])  # ``.. method:: Other.close(force)``
        if owner is not None and not self._receiver_ok(owner):
            return _NONE
        inside = balanced(text[match.end() - 1 :])
        if inside is None:
            return _NONE
        seen = tuple(p for p in self.params if p in _declared_names(inside))
        return Mention(Strength.strong, seen) if seen else _NONE

    def _sees_change(self, call: str) -> tuple[str, ...] | None:
        """The changed parameters a call starting at ``call``'s parenthesis sees; None when
        it sees none. When what it passes cannot be read, every changed parameter it may
        pass (empty only when impact named none), so the evidence still says what changed."""
        inside = balanced(call)
        arguments = CallArguments.parse(_unprompted(inside)) if inside is not None else None
        if self.before is not None and self.after is not None:
            if arguments is None:
                return tuple(self.params)  # not Python, or it goes on out of sight
            return tuple(seen_changes(self.before, self.after, arguments)) or None
        if not self.params or arguments is None or arguments.positional or arguments.unpacks:
            return tuple(self.params)  # what changed, or what the call passes, is unknown
        passed = tuple(sorted(arguments.keywords & set(self.params)))
        return passed or None

    def _reached_by(self, before: str) -> bool:
        """Whether the name right after ``before`` may be this symbol: its receiver may be,
        and a top-level name reached through a chain (``pytest.mark.skip``) is reached
        through a part of its module (``_pytest.outcomes.skip``), else it is another
        object's member of that name (the marker ``skip``, not the function)."""
        receiver = _receiver(before)
        if not self._receiver_ok(receiver):
            return False
        top_level = not self._is_member
        chained = receiver is not None and _CHAINED.search(before) is not None
        return not (top_level and chained and receiver not in self.qualifiers)

    @property
    def _is_member(self) -> bool:
        """A class's method or attribute; a constructor (``Schema.__init__``, called as
        ``Schema(...)``) is named like the class, a top-level name."""
        return self.owner is not None and not self.constructor

    @property
    def _class_named(self) -> bool:
        """A member named like a class (sympy's handler method ``AskEvenHandler.Float``):
        alone, ``Float(34.3)`` is that class, so only ``handler.Float`` reaches the member.
        A constant (``CB_ISSUER_CHECK``) is no class name."""
        if not self._is_member:
            return False
        return self.member[:1].isupper() and not self.member.isupper()

    def _receiver_ok(self, receiver: str | None) -> bool:
        """Whether ``receiver.member(`` may call this symbol: a member needs a receiver that
        could be its class or an instance of it (bare, only an identifier-shaped name: a
        bare ``copy()`` is some other ``copy``); a top-level name a module part or none."""
        if self.owner is None or self.constructor:  # spelled out: it narrows ``owner``
            if receiver is None:
                return True
            if receiver in self.qualifiers or receiver == self.owner:
                return True
            return not self.vague and not receiver[:1].isupper()  # not `Integer.Comparator`
        if receiver is None:
            return not self.vague and not self._class_named and not self.shared
        if receiver in self.modules:
            return False  # ``sv.comments(...)`` after ``import soupsieve as sv``: a function
        if self.shared:
            return _names_owner(receiver, self.owner)
        return receiver in _RECEIVERS or _names_owner(receiver, self.owner)

    def _as_identifier(self, code: str, *, whole: bool) -> bool:
        """The name in code where it reads as this identifier: not where the dotted path
        before it names another owner (``connectivity.utils`` for ``classification.utils``),
        and, for a top-level name, not where code binds a local of the same name
        (``random_state = ...``, ``f(random_state=1)``)."""
        uses = [m for m in word(self.member).finditer(code) if self._is_use(code, m)]
        if not uses:
            return False
        if not self.vague:
            return not self.constructor
        stripped = code.strip().removesuffix("()")
        if whole and stripped == self.member and not is_common(self.member):
            return self.owner is None  # `review` alone in a code span; whose `spider`?
        if _IMPORT.match(code):
            return True
        directive = _OBJECT_DIRECTIVE.match(code)
        if directive is not None and directive.group(1) == self.member:
            return True
        for match in uses:
            before, after = code[: match.start()], code[match.end() :]
            if before.endswith("@"):
                return True
            if before.endswith(".") and not after.startswith("."):
                return True
        return False

    def _is_use(self, code: str, match: re.Match[str]) -> bool:
        before, after = code[: match.start()], code[match.end() :]
        if _DEFINES.search(before):
            return False  # the doc defines its own function or class of that name
        if self._is_member and _IMPORT.match(code):
            return False  # ``from peewee import database``: a module's name, never a member
        if not self.module and _names_a_module(code, match.start()):
            return False  # ``import statsd``: the module, not its removed ``statsd.statsd``
        if before.endswith("."):
            receiver = _receiver(before)
            if receiver is None:  # ``G[v].copy``: whose ``copy`` cannot be told
                return not self.vague and not self.shared
            return self._reached_by(before)
        if self._class_named:
            return False
        if self.owner is None and re.match(r"\s*=(?!=)", after):
            return False  # a local or a keyword argument of the same name
        return not (self.owner is None and re.search(r"\b(?:as|for)\s+$", before))

    def _about_parameters(
        self, codes: list[str], prose: str, *, in_code: bool
    ) -> tuple[str, ...] | None:
        """The changed parameters the line names (``timeout=``, `` `timeout` ``), or all the
        changed ones when its prose talks about the parameters without naming one (a code line is no
        prose: ``perror("takes no positional arguments")`` says nothing of ``perror``'s);
        None otherwise."""
        named: list[str] = []
        for param in self.params:
            assigned = re.search(rf"(?<![\w$-]){re.escape(param)}\s?=", prose)
            if assigned or any(word(param).search(c) for c in codes):
                named.append(param)
        if named:
            return tuple(named)
        if not in_code and _ABOUT_PARAMETERS.search(_without_spans(prose)):
            if any(word(p).search(t) for p in self._unchanged_params() for t in (*codes, prose)):
                return None  # "the document_models argument": about a parameter that stays
            return tuple(self.params)  # it describes them all: say which changed
        return None

    def _unchanged_params(self) -> frozenset[str]:
        """Parameters both signatures have that did not change (empty when unknown)."""
        if self.before is None or self.after is None:
            return frozenset()
        names = [set(sig.positional) | sig.keywords for sig in (self.before, self.after)]
        return frozenset((names[0] & names[1]) - set(self.params) - _RECEIVERS)


_CAMEL_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
"""The words of an identifier, by case and underscores (``AgnosticDatabase``: Agnostic,
Database; ``my_database``: my, database)."""
_OWNER_WORD = 5
"""A class's last word must be this long to stand for the class (``Database``, not ``Base``)."""
_CHAINED = re.compile(r"[\w$)\]]\s*\.\s*[\w$]+\s*\.\s*$")
"""A member reached through another member: ``pytest.mark.`` before ``skip``."""
_SUPER = re.compile(r"\bsuper\(\s*([\w$.]+)\s*,[^()]*\)\s*\.\s*$")
_NAMED_RECEIVER = re.compile(r"([\w$]+)\s*\.\s*$")


def _receiver(before: str) -> str | None:
    """The receiver of a member named right after ``before``: the name before the dot, or
    for ``super(DmozSpider, cls).from_crawler`` the class named (its base's member, one of a
    ``DmozSpider``-like class, not of any class of that member name); None when it cannot
    be read (``super()``, a chained call)."""
    explicit = _SUPER.search(before)
    if explicit is not None:
        return explicit.group(1).rsplit(".", 1)[-1]
    named = _NAMED_RECEIVER.search(before)
    return named.group(1) if named is not None else None


def _unprompted(arguments: str) -> str:
    """A call's arguments without the doctest prompts of its continuation lines."""
    return re.sub(r"\n\s*(?:>>>|\.\.\.)(?: |$)", "\n", arguments)


_TITLE = re.compile(r"^\s*(?:#{1,6}\s|title\s*:)")
"""A Markdown heading or a ``title:`` metadata line: the page's name, not code."""
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]*\)")
_RST_LINK = re.compile(r"`[^`<]*<[^>`]+>`__?")


def _without_titles_and_links(line: LineContext) -> LineContext:
    """A prose line without what names no API object in prose: a link's target (a page or
    URL: ``(smart_strong.md)``), a link's plain text (a page title: ``[WikiLinks](...)``), a
    reST hyperlink, and the words of a heading or ``title:`` line. Code spans stay."""
    text = _RST_LINK.sub(" ", line.text)
    text = _MD_LINK.sub(lambda m: m.group(1) if "`" in m.group(1) else " ", text)
    if _TITLE.match(text):
        text = " ".join(m.group(0) for m in re.finditer(r"(`+)(.+?)\1", text))
    if text == line.text:
        return line
    spans = code_spans(text)
    return dataclasses.replace(line, text=text, code=spans)


_NON_MODULE_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:py:)?(?:auto)?(?:class|exception|function|method|attribute|data"
    r"|decorator|classmethod|staticmethod|property)::"
)
_NON_MODULE_ROLE = re.compile(r":(?:py:)?(?:class|exc|func|meth|attr|data):`[^`]*`")


def _without_non_modules(line: LineContext, member: str) -> LineContext:
    """For a module: the line without what names a class or function of the same name
    (pexpect's ``.. autoclass:: ANSI`` under ``.. automodule:: pexpect.ANSI`` documents the
    class ``ANSI``, not the removed top-level module ``ANSI``). A module is never called:
    ``urllib3.request()`` is urllib3 2.0's new function, not its removed module."""
    if _NON_MODULE_DIRECTIVE.match(line.text):
        return dataclasses.replace(line, text="", code=())
    called = re.compile(rf"(?<![\w.])(?:\w+\.)*{re.escape(member)}(?=\s*\()")
    text = called.sub(" ", _NON_MODULE_ROLE.sub(" ", line.text))
    if text == line.text:
        return line
    code = line.code if len(line.code) == 1 and line.code[0] == line.text else None
    spans = (text,) if code else code_spans(text)
    return dataclasses.replace(line, text=text, code=spans)


def _without_spans(text: str) -> str:
    return re.sub(r"(`+)(.+?)\1", " ", text)


def _names_owner(receiver: str, owner: str) -> bool:
    """``ctx``, ``context``, ``user_schema`` may be a ``Context`` / ``Schema``; ``command`` is
    not a ``Context``: the receiver ends with the class's name or the last word of it
    (``my_database`` and ``MotorDatabase`` for ``AgnosticDatabase``), or abbreviates it."""
    name, cls = receiver.lower().lstrip("_"), owner.lower()
    if cls == name or name.endswith(cls) or name.endswith(cls.rsplit("_", 1)[-1]):
        return True
    last = _CAMEL_WORD.findall(owner)[-1:]
    words = _CAMEL_WORD.findall(receiver) or [""]
    if last and len(last[0]) >= _OWNER_WORD and words[-1].lower() == last[0].lower():
        return True
    if not name or name[0] != cls[0]:
        return False
    letters = iter(cls)
    return all(char in letters for char in name)
