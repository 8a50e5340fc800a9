"""The React rule engine's catalogue: which rules a React directive activates.

The rule ids and categories ship as package data (``react-rules.tsv``, one
rule a line: priority, category, impact, id). A directive activates the rules
it names, else the categories its words point at, else (a React project with
no narrower hint) the CRITICAL and HIGH categories 1-3 the seed enables by
default. The planner hands the active ids to every task; the auditor checks
them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

DEFAULT_CATEGORIES = (1, 2, 3)
"""CRITICAL and HIGH: enabled whenever a React directive names nothing narrower."""

CATEGORY_WORDS: dict[int, tuple[str, ...]] = {
    1: ("waterfall", "sequential await", "promise.all", "parallel fetch", "suspense"),
    2: (
        "bundle",
        "barrel",
        "lazy-load",
        "lazy load",
        "dynamic import",
        "next/dynamic",
        "third-party",
        "third party",
        "preload",
        "code split",
    ),
    3: (
        "server component",
        "server-side",
        "server side",
        "server action",
        "serializ",
        "react.cache",
        "per-request",
        "lru",
    ),
    4: ("swr", "event listener", "localstorage", "client-side data", "client side data"),
    5: ("re-render", "rerender", "memo", "derived state", "setstate", "lazy state"),
    6: ("rendering", "hydration", "content-visibility", "svg", "conditional render"),
    7: ("javascript performance", "js performance", "hot loop", "lookup"),
    8: ("advanced pattern", "useeffectevent", "uselatest", "event handler ref"),
}
REACT_WORDS = ("react", "next.js", "nextjs", "jsx", "tsx", "component", "hook", "use client")


@dataclass(frozen=True)
class ReactRule:
    rule_id: str
    priority: int
    category: str
    impact: str


@cache
def all_rules() -> tuple[ReactRule, ...]:
    """Every rule of the catalogue, in file order (priority, then the guide's order)."""
    text = resources.files("prflow").joinpath("refactor/react-rules.tsv").read_text("utf-8")
    rules: list[ReactRule] = []
    for line in text.splitlines()[1:]:
        if not line.strip():
            continue
        priority, category, impact, rule_id = line.split("\t")
        rules.append(ReactRule(rule_id.strip(), int(priority), category.strip(), impact.strip()))
    return tuple(rules)


def rule_ids() -> frozenset[str]:
    return frozenset(rule.rule_id for rule in all_rules())


def is_react_directive(directive: str) -> bool:
    """Whether the directive itself talks about React or Next.js code."""
    text = directive.lower()
    return any(word in text for word in REACT_WORDS) or bool(_named_ids(text))


def _named_ids(text: str) -> list[str]:
    return [
        rule.rule_id for rule in all_rules() if re.search(rf"\b{re.escape(rule.rule_id)}\b", text)
    ]


def active_rules(directive: str, *, react_project: bool) -> list[str]:
    """The rule ids a directive activates; empty for a directive that is not about React."""
    text = directive.lower()
    named = _named_ids(text)
    if named:
        return named
    if not (react_project or is_react_directive(directive)):
        return []
    categories = [n for n, words in CATEGORY_WORDS.items() if any(w in text for w in words)]
    chosen = categories or list(DEFAULT_CATEGORIES)
    return [rule.rule_id for rule in all_rules() if rule.priority in chosen]


def describe(ids: Sequence[str]) -> str:
    """One line per rule for a prompt: id, category and impact."""
    by_id = {rule.rule_id: rule for rule in all_rules()}
    lines = []
    for rule_id in ids:
        rule = by_id.get(rule_id)
        if rule is not None:
            lines.append(f"- {rule.rule_id} ({rule.category}, {rule.impact})")
    return "\n".join(lines)
