"""Which docs a change affects, bucketed by score, each with the lines that say why.

A doc line naming a target scores the target's weight. A symbol counts only
where it is named like code (:mod:`prflow.docsync.mentions`); for one whose
signature or type changed, a call that can see the change or a line naming a
changed parameter scores in full, with that parameter on the evidence; a call
that cannot see it, a bare reference or a prose mention much less (an example
passing a removed keyword goes stale, ``f('x')`` and a pointer to ``f`` do not); for a
changed return type, only a line using the result's shape (an attribute, an item,
unpacking, iteration; :mod:`prflow.docsync.results`) scores in full; a removed
symbol named only in prose, a title or a link's text is no use of it either; a
removed ``pkg/mod.py`` the head has as ``pkg/mod/__init__.py`` still imports as ``pkg.mod``.
A doc's score is its best evidence plus a little for each further target it
names. Front-matter
mappings score like a mention of the file's strongest change. Then scores flow
backwards along links: a doc linking to an affected doc gets ``link_decay`` of
its score, up to ``link_depth`` hops; a doc is visited again only when it gets
a better score, so link cycles end.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from prflow.analysis.findings import MODULE_DETAIL
from prflow.analysis.stale_docs import _LineContext as LineContext
from prflow.analysis.stale_docs import _python_module
from prflow.docsync.doc_index import DocGlobs, doc_links, front_matter, watch_spec
from prflow.docsync.mentions import (
    Strength,
    SymbolMentions,
    autosummary_entries,
    bound_names,
    class_scopes,
    current_modules,
    doc_lines,
    doctest_output,
    is_common,
    is_vague,
    module_aliases,
    word,
)
from prflow.docsync.models import (
    AffectedDoc,
    Change,
    DocFindings,
    Evidence,
    EvidenceKind,
    Target,
    TargetKind,
    Thresholds,
)
from prflow.source_tree import SourceTree

PROSE_FACTOR = 0.35
"""A prose mention (no code span, no call) counts this share of a use: of a changed symbol,
and of a removed one too (markdown's "The WikiLinks extension" names the extension, not the
removed ``WikiLinks`` class); listed, probably fine, unless code names it too."""
REFERENCE_FACTOR = 0.4
"""A reference in code (``:meth:`X.y```, an import) to a symbol whose signature changed,
without a call or a changed parameter, counts this share of a call."""
RESULT_USE_WEIGHT = 0.9
"""A line using the result of a call whose return type changed (``fetch(u).status``,
``a, b = fetch(u)``) is as wrong as a call passing a changed parameter: must update."""
EXTRA_TARGET_BONUS = 0.05
STRONG_EVIDENCE = 0.5
MAPPED_WEAK = 0.6
"""A front-matter mapping to a file that changed without a breaking change: review it."""
MAX_EVIDENCE = 25
_CALL_LINES = 20
"""A call's arguments are looked for this many code lines past the line naming it."""
_EXCERPT = 200


@dataclass(frozen=True)
class _Hit:
    score: float
    seen: tuple[str, ...] = ()
    returns: str | None = None


@dataclass(frozen=True)
class _Matcher:
    """A path, option, variable or key: named where a pattern matches."""

    target: Target
    anywhere: tuple[re.Pattern[str], ...]
    in_code: tuple[re.Pattern[str], ...]
    link_path: str | None = None
    head_paths: frozenset[str] = frozenset()
    """The head's files: a directive's argument is read from a folder above its doc only
    where it names no file beside the doc."""

    def score(
        self,
        line: LineContext,
        in_block: bool,
        following: str = "",
        *,
        bound: frozenset[str] = frozenset(),
        listed: bool = False,
        scope: str | None = None,
        modules: frozenset[str] = frozenset(),
        output: bool = False,
        current_module: str | None = None,
    ) -> _Hit | None:
        """The score of this line for the target, None when it does not name it."""
        patterns = (*self.anywhere, *self.in_code)
        hit_any = any(p.search(code) for p in patterns for code in line.code)
        hit_any = hit_any or any(p.search(line.text) for p in self.anywhere)
        if self.link_path is not None and self.link_path in line.resolved_links:
            hit_any = True
        if self.link_path is not None and any(
            above == self.link_path and near not in self.head_paths
            for near, above in line.directive_paths_above
        ):
            hit_any = True
        return _Hit(self.target.weight) if hit_any else None


@dataclass(frozen=True)
class _SymbolMatcher:
    """A symbol: named in code-like ways (:mod:`prflow.docsync.mentions`); for a changed
    signature or type, a call or a changed parameter is what makes a doc wrong."""

    target: Target
    mentions: SymbolMentions

    def score(
        self,
        line: LineContext,
        in_block: bool,
        following: str = "",
        *,
        bound: frozenset[str] = frozenset(),
        listed: bool = False,
        scope: str | None = None,
        modules: frozenset[str] = frozenset(),
        output: bool = False,
        current_module: str | None = None,
    ) -> _Hit | None:
        mention = self.mentions.judge(
            line,
            in_block,
            following,
            bound=bound,
            listed=listed,
            scope=scope,
            modules=modules,
            output=output,
            current_module=current_module,
        )
        if mention.strength is Strength.none:
            return None
        weight = self.target.weight
        if mention.result is not None and self.target.returns:
            returns = f"{mention.result.value} of the result; {self.target.returns}"
            return _Hit(max(weight, RESULT_USE_WEIGHT), mention.seen, returns)
        if self.target.reads_break:
            if mention.strength is Strength.prose:
                weight *= PROSE_FACTOR
        elif self.target.change in (Change.signature, Change.modified):
            if mention.strength is Strength.reference:
                weight *= REFERENCE_FACTOR
            elif mention.strength is Strength.prose:
                weight *= PROSE_FACTOR
        elif mention.strength is Strength.prose:
            weight *= PROSE_FACTOR
        return _Hit(weight, mention.seen)


def matcher_for(
    target: Target, head_paths: frozenset[str] = frozenset()
) -> _Matcher | _SymbolMatcher | None:
    """How a doc line names ``target``; None when its name is too vague to look for.
    ``head_paths``: the head's files (a removed ``pkg/mod.py`` whose module the head has
    as ``pkg/mod/__init__.py`` is still importable: its dotted name is no evidence)."""
    name = target.name
    if target.kind == TargetKind.symbol:
        signatures = (target.before, target.after)
        mentions = SymbolMentions.of(
            name,
            target.source,
            tuple(target.params),
            signatures,
            returns=bool(target.returns),
            moved=target.moved,
            an_object=not target.detail.startswith(MODULE_DETAIL),
        )
        return _SymbolMatcher(target, mentions) if mentions is not None else None
    if target.kind == TargetKind.path:
        path = re.compile(rf"(?<![\w./-])(?:\.?/)?{re.escape(name)}(?![\w/-]|\.\w)")
        module = _python_module(name)
        moved = name.endswith(".py") and f"{name.removesuffix('.py')}/__init__.py" in head_paths
        dotted: tuple[re.Pattern[str], ...] = ()
        if module and "." in module and not moved:
            # a module is never called: ``urllib3.request()`` is a function of that name
            dotted = (re.compile(rf"{word(module).pattern}(?!\s*\()"),)
        if "/" not in name and "." not in name:
            # ``Dockerfile``, ``Makefile`` in prose: any project's (notebook 5.0 dropped its
            # own, and "the Dockerfile `ENTRYPOINT`" of a deployment guide is the reader's)
            return _Matcher(target, (), (path, *dotted), link_path=name, head_paths=head_paths)
        return _Matcher(target, (path,), dotted, link_path=name, head_paths=head_paths)
    if target.kind in (TargetKind.cli_option, TargetKind.env_var):
        return _Matcher(target, (word(name),), ())
    return _config_key_matcher(target)


def _config_key_matcher(target: Target) -> _Matcher | None:
    """The dotted key anywhere; its last part alone only in code, only while that name is
    gone from the file (not when the key moved), and a plain word only where it reads as a
    key (``context:``, ``context =``, ``[context]``)."""
    name = target.name
    key = name.rsplit(".", 1)[-1]
    full = (word(name),) if "." in name else ()
    leaf: tuple[re.Pattern[str], ...] = ()
    if not is_common(key) and not target.leaf_alive:
        if is_vague(key):
            escaped = re.escape(key)
            leaf = (re.compile(rf"(?<![\w$.-]){escaped}\s*[:=]|\[{escaped}\]"),)
        else:
            leaf = (word(key),)
    if not full and not leaf:
        return None
    return _Matcher(target, full, leaf)


_CODE_LINE = re.compile(r"^\s*(?:>>> |\.\.\. |\.\. (?:auto)?\w+:: |\.\. (?:py:)?\w+:: )")
"""Lines that are code though no fence says so: doctest prompts and reST object directives."""


def find_affected_docs(
    targets: list[Target],
    head: SourceTree,
    *,
    changed_paths: Iterable[str] = (),
    globs: DocGlobs | None = None,
    thresholds: Thresholds | None = None,
) -> DocFindings:
    """Every doc with evidence, best first; ``changed_paths`` feed front-matter mappings."""
    globs = globs or DocGlobs()
    thresholds = thresholds or Thresholds()
    all_paths = frozenset(head.paths())
    docs = globs.select(all_paths)
    matchers = [m for m in (matcher_for(t, all_paths) for t in targets) if m is not None]
    changed = sorted(set(changed_paths))
    evidence: dict[str, list[Evidence]] = {}
    linked_from: dict[str, set[str]] = {}
    for doc in docs:
        text = head.read_text(doc)
        if text is None:
            continue
        found = _mentions(doc, text, matchers) + _mapped(text, changed, targets)
        if found:
            evidence[doc] = found
        for target in doc_links(doc, text, all_paths):
            linked_from.setdefault(target, set()).add(doc)
    scores = {doc: _score(items) for doc, items in evidence.items()}
    _propagate(scores, evidence, linked_from, thresholds)
    affected = [
        AffectedDoc(
            path=doc,
            bucket=thresholds.bucket(scores[doc]),
            score=round(scores[doc], 3),
            evidence=sorted(items, key=lambda e: (-e.score, e.line or 0))[:MAX_EVIDENCE],
        )
        for doc, items in evidence.items()
    ]
    affected.sort(key=lambda d: (-d.score, d.path))
    return DocFindings(
        docs=affected, targets=targets, docs_scanned=len(docs), thresholds=thresholds
    )


def _mentions(doc: str, text: str, matchers: list[_Matcher | _SymbolMatcher]) -> list[Evidence]:
    best: dict[str, Evidence] = {}
    lines = list(doc_lines(text, doc))
    code = [line for _n, line, fenced in lines if fenced or _CODE_LINE.match(line)]
    bound, modules = bound_names(code), module_aliases(code)
    entries = autosummary_entries(lines)
    scopes = class_scopes(lines)
    current = current_modules(lines)
    outputs = doctest_output(
        (n, line, f or _CODE_LINE.match(line) is not None) for n, line, f in lines
    )
    for index, (number, line, fenced) in enumerate(lines):
        in_block = fenced or _CODE_LINE.match(line) is not None
        context = LineContext.of(line, in_block, doc)
        following = _following_code(lines, index) if in_block and "(" in line else ""
        listed = number in entries
        for matcher in matchers:
            hit = matcher.score(
                context,
                in_block,
                following,
                bound=bound,
                listed=listed,
                scope=scopes.get(number),
                modules=modules,
                output=number in outputs,
                current_module=current.get(number),
            )
            name = matcher.target.name
            if hit is None:
                continue
            score = hit.score
            if name in best and (best[name].score, _calls(best[name])) >= (score, _calls(line)):
                continue  # the first, best line wins; a call shows the signature best
            best[name] = Evidence(
                kind=EvidenceKind.mention,
                target=name,
                target_kind=matcher.target.kind,
                change=matcher.target.change,
                line=number,
                excerpt=line.strip()[:_EXCERPT],
                score=round(score, 3),
                seen=list(hit.seen),
                returns=hit.returns,
            )
    return list(best.values())


def _following_code(lines: list[tuple[int, str, bool]], index: int) -> str:
    """The code lines after ``lines[index]``, where a call's arguments may go on."""
    taken: list[str] = []
    for _number, line, fenced in lines[index + 1 : index + 1 + _CALL_LINES]:
        if not (fenced or _CODE_LINE.match(line)):
            break
        taken.append(line)
    return "\n".join(taken)


def _calls(item: Evidence | str) -> bool:
    text = item.excerpt if isinstance(item, Evidence) else item
    return re.search(r"[\w$]\s*\(", text) is not None


def _mapped(text: str, changed: list[str], targets: list[Target]) -> list[Evidence]:
    meta = front_matter(text)
    patterns = meta.watched()
    if not patterns:
        return []
    spec = watch_spec(patterns)
    strongest: dict[str, float] = {}
    for target in targets:
        if target.source is not None and target.change != Change.modified:
            strongest[target.source] = max(strongest.get(target.source, 0.0), target.weight)
        if target.kind == TargetKind.path and target.change != Change.modified:
            strongest[target.name] = max(strongest.get(target.name, 0.0), target.weight)
    lines = text.splitlines()[: meta.lines]
    found: list[Evidence] = []
    for path in changed:
        if not spec.match_file(path):
            continue
        number = next((i for i, line in enumerate(lines, 1) if path in line), 1)
        found.append(
            Evidence(
                kind=EvidenceKind.front_matter,
                target=path,
                target_kind=TargetKind.path,
                line=number,
                excerpt=lines[number - 1].strip() if lines else "",
                score=max(MAPPED_WEAK, strongest.get(path, 0.0)),
            )
        )
    return found


def _score(items: list[Evidence]) -> float:
    """The best evidence, plus a little for each further strong target (weak ones alone
    never add up to a review)."""
    top = max(item.score for item in items)
    strong = len({item.target for item in items if item.score >= STRONG_EVIDENCE})
    return min(1.0, top + EXTRA_TARGET_BONUS * max(0, strong - 1))


def _propagate(
    scores: dict[str, float],
    evidence: dict[str, list[Evidence]],
    linked_from: dict[str, set[str]],
    thresholds: Thresholds,
) -> None:
    """Pass scores to linking docs, breadth first, ``link_depth`` hops at most."""
    queue = deque(
        (doc, score, 0) for doc, score in sorted(scores.items()) if score >= thresholds.review
    )
    while queue:
        doc, score, depth = queue.popleft()
        if depth >= thresholds.link_depth:
            continue
        passed = round(score * thresholds.link_decay, 3)
        for source in sorted(linked_from.get(doc, ())):
            if passed <= scores.get(source, 0.0):
                continue  # already as affected: also what ends a cycle
            scores[source] = passed
            evidence.setdefault(source, []).append(
                Evidence(
                    kind=EvidenceKind.link,
                    target=doc,
                    via=doc,
                    excerpt=f"links to {doc}",
                    score=passed,
                )
            )
            queue.append((source, passed, depth + 1))
