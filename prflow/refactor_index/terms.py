"""Words of code for lexical search: identifiers split at case and underscores.

``parseJsonConfig``, ``parse_json_config`` and "parse the JSON config" all
yield ``parse``, ``json``, ``config``, so a directive written in prose meets
the code that implements it.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Keywords and filler that every file and every directive has: they only add noise.
_STOP_TEXT = """
a an and are as at be by do for from if in into is it its of on or so the to this that
with without all any each every use uses using via not no when then than them they
def class self cls return import none true false const let var function new async await
export default null undefined typeof instanceof elif else try except finally raise pass
while break continue lambda yield global nonlocal assert del str int bool float dict
list tuple set object type interface extends implements public private protected
static readonly void string number boolean should would could can may must make
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def split_identifier(identifier: str) -> list[str]:
    """Lower-cased parts of one identifier (``getHTTPResponse`` -> get, http, response)."""
    return list(_parts(identifier))


@lru_cache(maxsize=65536)
def _parts(identifier: str) -> tuple[str, ...]:
    """Identifiers repeat a lot across files; split each once per process."""
    return tuple(
        part
        for part in (p.lower() for p in _CAMEL.findall(identifier))
        if len(part) > 1 and part not in STOP_WORDS
    )


def words(text: str, max_terms: int | None = None) -> Counter[str]:
    """Counts of the lower-cased identifier parts of ``text`` (stop words and 1-letter parts out).

    ``max_terms`` keeps only the most frequent ones (ties by name), bounding a record's size.
    """
    counts: Counter[str] = Counter()
    for token in _WORD.findall(text.replace("_", " ")):
        counts.update(_parts(token))
    if max_terms is not None and len(counts) > max_terms:
        kept = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:max_terms]
        return Counter(dict(kept))
    return counts


def query_terms(text: str) -> list[str]:
    """The words of a directive or task, each once, in order."""
    return list(dict.fromkeys(words(text)))


def path_terms(path: str) -> list[str]:
    """Words of a file path (directories and stem), which say a lot about a file."""
    return list(words(re.sub(r"\.[A-Za-z0-9]+$", "", path).replace("/", " ")))
