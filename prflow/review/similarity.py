"""How alike two findings read: TF-IDF cosine of their words, for merging by meaning.

Two reviewers describing one bug rarely share a title ("Possible None
dereference of `user`" / "Missing null check before accessing user.email"),
but their titles and bodies share the words that matter (``user``, ``email``,
``none``, ``attributeerror``) while words every finding uses weigh little.
Lexical on purpose: no model, deterministic, fast; identifiers are split the
way code is read (``get_user`` and ``getUser`` both give ``get`` and ``user``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "in",
        "on",
        "of",
        "to",
        "for",
        "and",
        "or",
        "not",
        "no",
        "with",
        "without",
        "by",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "as",
        "at",
        "from",
        "into",
        "when",
        "if",
        "then",
        "than",
        "so",
        "but",
        "can",
        "may",
        "will",
        "would",
        "should",
        "does",
        "do",
        "did",
        "has",
        "have",
        "had",
        "use",
        "used",
        "using",
        "instead",
        "there",
        "here",
        "which",
        "who",
        "what",
        "how",
        "one",
        "each",
        "any",
        "all",
        "only",
        "also",
        "more",
        "less",
        "same",
        "just",
        "now",
    ]
)
TITLE_WEIGHT = 2
"""A title's words count this many times: it names the issue, the body explains it."""


def words(text: str) -> list[str]:
    """The words of ``text`` that carry meaning: identifiers split, lowercased, stemmed."""
    out: list[str] = []
    for raw in _IDENTIFIER.findall(text):
        parts = [raw.lower(), *(p.lower() for p in re.split(r"_+", _CAMEL.sub("_", raw)) if p)]
        for part in dict.fromkeys(parts):
            if part in _STOPWORDS or len(part) < 2 or part.isdigit():
                continue
            out.append(_stem(part))
    return out


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def finding_words(title: str, body: str) -> list[str]:
    return words(title) * TITLE_WEIGHT + words(body)


class MeaningIndex:
    """TF-IDF vectors of a set of texts (one review's findings), compared by cosine."""

    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        frequency: Counter[str] = Counter()
        for document in documents:
            frequency.update(set(document))
        total = len(documents)
        self._idf = {
            word: math.log((1 + total) / (1 + count)) + 1.0 for word, count in frequency.items()
        }
        self._default_idf = math.log(1 + total) + 1.0

    def vector(self, document: Iterable[str]) -> dict[str, float]:
        counts = Counter(document)
        weights = {w: n * self._idf.get(w, self._default_idf) for w, n in counts.items()}
        norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
        return {w: v / norm for w, v in weights.items()}

    def cosine(self, a: Iterable[str], b: Iterable[str]) -> float:
        va, vb = self.vector(a), self.vector(b)
        if len(va) > len(vb):
            va, vb = vb, va
        return sum(weight * vb.get(word, 0.0) for word, weight in va.items())
