"""Hybrid retrieval: which indexed files a directive or task is about.

Five scores of the indexed files, each in [0, 1], are added with weights
(:func:`fuse`):

- **lexical** — BM25+ (``rank_bm25``) over each file's identifier words, with
  its path words counted twice;
- **symbol** — the same BM25+ over each symbol's own words, a file scoring its best;
- **semantic** — the best cosine between the query's embedding and the
  file's embedded texts (the file summary and each symbol), scaled from the
  median file (0) to the best (1): a static model gives every file some
  similarity, only the head of the distribution is signal;
- **named** — files whose path, or one of whose symbols, the query names
  literally (``parse_config``, ``storage/io.py``, ``Graph.add_edge``);
- **stem** — files whose name the query says as words ("compiler error" and
  ``compiler.py``).

Barrels and ``.pyi`` stubs beside their module score half: they repeat names
whose code lives elsewhere.

The top files are then expanded through the import graph: a direct importer
or import of a seed file joins with a share of the seed's score, so the
callers a change must update come along. The bundle keeps files scoring at
least ``min_ratio`` of the best, at most ``max_files``, and stops at the knee: the
first drop between neighbouring scores above ``knee_ratio`` of the best. Only indexed paths
can be ranked, so every path in a bundle exists in the snapshot.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from prflow.imports.graph import ImportEdge
from prflow.refactor_index.models import FileRecord, RepoIndex
from prflow.refactor_index.terms import path_terms, query_terms, words

if TYPE_CHECKING:  # numpy (and BM25, built on it) load when a query is scored, so a worker
    # registering the refactor activities starts without them
    from prflow import embeddings


class RetrievalSettings(BaseModel):
    max_files: int = Field(default=8, ge=1, le=200)
    min_ratio: float = Field(default=0.75, ge=0.0, le=1.0)
    knee_ratio: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="Stop at the first drop between neighbours larger than this share of the "
        "best score (1.0: only min_ratio and max_files cut)",
    )
    seeds_for_expansion: int = Field(default=3, ge=0)
    expansion_share: float = Field(default=0.5, ge=0.0, le=1.0)
    weights: dict[str, float] = Field(
        default_factory=lambda: {
            "lexical": 1.0,
            "symbol": 1.0,
            "semantic": 0.5,
            "named": 1.0,
            "stem": 0.5,
        }
    )


class BundleFile(BaseModel):
    path: str
    score: float
    reasons: list[str] = Field(description="Which rankings put the file here: lexical, ...")
    symbols: list[str] = Field(default_factory=list, description="Its symbols closest to the query")


class RetrievalBundle(BaseModel):
    """The files retrieved for one query, best first; recorded in the blob store per task."""

    query: str
    index_version: str
    files: list[BundleFile] = Field(default_factory=list)

    def paths(self) -> list[str]:
        return [f.path for f in self.files]


def rank(scores: Mapping[str, float]) -> list[str]:
    """Paths with a positive score, best first (ties by path, so rankings are stable)."""
    return [p for p, s in sorted(scores.items(), key=lambda i: (-i[1], i[0])) if s > 0]


def scaled(scores: Mapping[str, float], floor_quantile: float = 0.0) -> dict[str, float]:
    """Scores mapped to [0, 1]: the ``floor_quantile`` score (or 0) to 0, the best to 1."""
    if not scores:
        return {}
    import numpy as np

    values = np.array(list(scores.values()), dtype=np.float64)
    low = float(np.quantile(values, floor_quantile)) if floor_quantile > 0 else 0.0
    high = float(values.max())
    if high <= low:
        return {path: 0.0 for path in scores}
    return {path: max(0.0, (value - low) / (high - low)) for path, value in scores.items()}


def fuse(
    parts: Mapping[str, Mapping[str, float]], weights: Mapping[str, float]
) -> dict[str, float]:
    """Weighted sum of already scaled scores; a path missing from a part scores 0 there."""
    fused: dict[str, float] = defaultdict(float)
    for name, scores in parts.items():
        weight = weights.get(name, 1.0)
        for path, score in scores.items():
            if score > 0:
                fused[path] += weight * score
    return dict(fused)


def expand_through_imports(
    scores: Mapping[str, float], edges: Iterable[ImportEdge], seeds: int, share: float
) -> dict[str, float]:
    """``scores`` plus, for each of the top ``seeds`` files, its direct neighbours in the graph.

    A neighbour gets ``share`` of the seed's score unless it already scores higher.
    """
    neighbours: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        neighbours[edge.importer].add(edge.target)
        neighbours[edge.target].add(edge.importer)
    expanded = dict(scores)
    for seed in rank(scores)[:seeds]:
        for other in sorted(neighbours.get(seed, ())):
            expanded[other] = max(expanded.get(other, 0.0), scores[seed] * share)
    return expanded


def cut(
    scores: Mapping[str, float], max_files: int, min_ratio: float, knee_ratio: float = 1.0
) -> list[str]:
    """The best paths: at most ``max_files``, each scoring at least ``min_ratio`` of the best,
    and none past the knee: the first drop between neighbours in the ranking larger than
    ``knee_ratio`` of the best score (1.0: no knee).

    Most directives are about one or two files that stand clear of the rest; files close
    to each other are kept together, since which of them is meant is a toss-up.
    """
    ranked = rank(scores)
    if not ranked:
        return []
    best = scores[ranked[0]]
    kept = [ranked[0]]
    for path in ranked[1:max_files]:
        if scores[path] < best * min_ratio or scores[kept[-1]] - scores[path] > best * knee_ratio:
            break
        kept.append(path)
    return kept


def lexical_scores(query: str, records: Mapping[str, FileRecord]) -> dict[str, float]:
    """BM25 of the query's words against each file's words (path words counted twice)."""
    terms = query_terms(query)
    paths = sorted(records)
    if not terms or not paths:
        return {}
    corpus = []
    for path in paths:
        document = [word for word, count in records[path].terms.items() for _ in range(count)]
        document += path_terms(path) * 2
        corpus.append(document or ["\0"])
    # BM25+ (Lv & Zhai 2011): its idf stays positive in small repositories, where Okapi's
    # gives a word found in half the files a weight of zero. Its lower bound adds
    # idf * delta per query word to every file alike; that constant is taken off again.
    from rank_bm25 import BM25Plus

    bm25 = BM25Plus(corpus)
    baseline = sum(bm25.idf.get(term, 0.0) * bm25.delta for term in terms)
    scores = bm25.get_scores(terms)
    return {
        path: max(0.0, float(score) - baseline) for path, score in zip(paths, scores, strict=True)
    }


def semantic_scores(
    query_vector: embeddings.Vectors, file_vectors: Mapping[str, embeddings.Vectors]
) -> dict[str, float]:
    """For each file, the best cosine between the query and one of its embedded texts."""
    import numpy as np

    from prflow import embeddings

    scores: dict[str, float] = {}
    for path, matrix in file_vectors.items():
        if len(matrix):
            scores[path] = float(np.max(embeddings.cosine_matrix(query_vector[None, :], matrix)))
    return scores


_CODE = re.compile(r"``?([^`]+?)``?|'([^'\s]+)'|\"([^\"\s]+)\"")
_IDENT = re.compile(r"[A-Za-z_][\w.]*\w|[\w./-]+\.\w+")
_WHOLE_NAME = re.compile(r"@?[A-Za-z_][\w.]*(\(\))?|[\w./-]+\.\w+")
# camelCase or CapWords with two humps (getUser, TypeError, SSLEOFError), not acronyms
# or brand spellings (URL, IPv6, MSYS2, DoS), which are words of the prose.
_CAMEL_NAME = re.compile(r"[a-z][A-Z][a-z]|[A-Z]{2,}[a-z]{2,}|^[a-z]+[A-Z]")


def mentioned_names(query: str) -> set[str]:
    """Names the query writes as code: quoted or in backticks, dotted, snake_case or camelCase.

    Plain words ("filter", "group") are left out: they name too many symbols by accident.
    A quoted span counts only when it is one name or path as a whole: the words of
    ``multipart/x-www-form-urlencoded`` or ``{% trans %}`` are prose, not symbols.
    """
    found: set[str] = set()
    for groups in _CODE.findall(query):
        for quoted in groups:
            span = quoted.strip()
            if span and _WHOLE_NAME.fullmatch(span):
                found.update(m.lower() for m in _IDENT.findall(span))
    for token in _IDENT.findall(query):
        if "_" in token or "." in token.strip(".") or _CAMEL_NAME.search(token):
            found.add(token.lower())
    return {name.strip(".").removeprefix("@") for name in found if len(name.strip(".")) > 2}


def _names_symbol(symbol: str, kind: str, mentioned: set[str]) -> bool:
    """Whether a mention names this symbol (``Class.method``, ``function`` or ``Class``).

    ``TypeConversionDict.get`` names that class and its ``get``, not every ``get``;
    ``click.group`` names a function or class ``group`` (the first part may be a module).
    """
    name = symbol.lower()
    short = name.rsplit(".", 1)[-1]
    helper = short.lstrip("_").removeprefix("do_")
    for mention in mentioned:
        parts = mention.rstrip("()").split(".")
        if name == mention or name == ".".join(parts[-2:]):
            return True
        if kind == "method" and "." in name:
            # A method is named by its own dotted name only, or by a bare ``method`` mention.
            if len(parts) == 1 and short == parts[0]:
                return True
            continue
        if short in (parts[-1], parts[0]) or helper == parts[-1]:
            return True
    return False


def named_scores(query: str, records: Mapping[str, FileRecord]) -> dict[str, float]:
    """Files the query names: by path (2), by module (1), by a symbol of theirs (1 each).

    A symbol matches a mentioned name by its full (``Class.method``) or short name, or by
    its last dotted part (``click.command`` names ``command``), or as ``do_<name>`` /
    ``_<name>`` helpers; a method only by ``Class.method`` or its bare name.
    """
    mentioned = mentioned_names(query)
    if not mentioned:
        return {}
    scores: dict[str, float] = {}
    for path, record in records.items():
        score = 0.0
        lowered = path.lower()
        if any(lowered.endswith(m) for m in mentioned if "/" in m):
            score += 2.0
        module = lowered.rsplit(".", 1)[0].replace("/", ".")
        if any(m == module or module.endswith("." + m) for m in mentioned if "." in m):
            score += 1.0
        for symbol in record.symbols:
            if _names_symbol(symbol.name, symbol.kind, mentioned):
                score += 0.5 if symbol.kind == "method" else 1.0
        if score:
            scores[path] = score
    return scores


def symbol_scores(query: str, records: Mapping[str, FileRecord]) -> dict[str, float]:
    """BM25 of the query against each symbol's own words; a file scores its best symbol."""
    terms = query_terms(query)
    owners: list[str] = []
    corpus: list[list[str]] = []
    for path in sorted(records):
        for symbol in records[path].symbols:
            text = " ".join([symbol.name, symbol.signature, symbol.doc, symbol.body_head])
            document = [word for word, count in words(text).items() for _ in range(count)]
            owners.append(path)
            corpus.append(document or ["\0"])
    if not terms or not corpus:
        return {}
    from rank_bm25 import BM25Plus

    bm25 = BM25Plus(corpus)
    baseline = sum(bm25.idf.get(term, 0.0) * bm25.delta for term in terms)
    best: dict[str, float] = {}
    for path, score in zip(owners, bm25.get_scores(terms), strict=True):
        best[path] = max(best.get(path, 0.0), float(score) - baseline)
    return best


BARREL_WEIGHT = 0.5
"""Files that only pass names on list every name, so they match everything and change rarely."""

STUB_WEIGHT = 0.5
"""A ``.pyi`` stub beside its ``.py`` repeats every name of the module; the code is in the .py."""


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def stem_scores(query: str, paths: Iterable[str]) -> dict[str, float]:
    """1 for files whose name the query says as words: "compiler error" names ``compiler.py``,
    "shell completion" ``shell_completion.py``, "filters" ``filters.py``.

    A package's ``__init__`` goes by its directory's name. Names under four letters
    (``io``, ``ext``) are left out: as words they are too often something else.
    """
    said = {_singular(w) for w in query_terms(query)}
    scores: dict[str, float] = {}
    for path in paths:
        parts = path.split("/")
        stem = parts[-1].split(".", 1)[0]
        if stem == "__init__" and len(parts) > 1:
            stem = parts[-2]
        stem_words = [_singular(w) for w in words(stem)]
        if stem_words and len("".join(stem_words)) >= 4 and all(w in said for w in stem_words):
            scores[path] = 1.0
    return scores


def _weight(path: str, record: FileRecord, indexed: set[str]) -> float:
    if record.is_barrel:
        return BARREL_WEIGHT
    if path.endswith(".pyi") and path[:-1] in indexed:
        return STUB_WEIGHT
    return 1.0


def retrieve_files(
    query: str,
    index: RepoIndex,
    records: Mapping[str, FileRecord],
    file_vectors: Mapping[str, embeddings.Vectors],
    query_vector: embeddings.Vectors,
    settings: RetrievalSettings | None = None,
    symbol_names: Mapping[str, Sequence[str | None]] | None = None,
) -> RetrievalBundle:
    """The bundle for ``query``. Pure: the caller loads records and vectors.

    ``symbol_names[path][i]`` names the symbol of ``file_vectors[path][i]`` (None for the
    file summary); when given, each bundle file lists its two symbols closest to the query.
    """
    import numpy as np

    from prflow import embeddings

    settings = settings or RetrievalSettings()
    indexed = set(index.paths())
    records = {p: r for p, r in records.items() if p in indexed}
    vectors = {p: v for p, v in file_vectors.items() if p in indexed}
    parts = {
        "lexical": scaled(lexical_scores(query, records)),
        "symbol": scaled(symbol_scores(query, records)),
        "semantic": scaled(semantic_scores(query_vector, vectors), floor_quantile=0.5),
        "named": scaled(named_scores(query, records)),
        "stem": stem_scores(query, records),
    }
    rankings = {name: rank(scores)[:10] for name, scores in parts.items()}
    fused = {
        path: score * _weight(path, records[path], indexed)
        for path, score in fuse(parts, settings.weights).items()
    }
    expanded = expand_through_imports(
        fused, index.edges, settings.seeds_for_expansion, settings.expansion_share
    )
    chosen = cut(expanded, settings.max_files, settings.min_ratio, settings.knee_ratio)
    files = []
    for path in chosen:
        reasons = [name for name, ranking in rankings.items() if path in ranking]
        if path not in fused or expanded[path] > fused[path]:
            reasons.append("graph")
        closest: list[str] = []
        if symbol_names is not None and path in vectors:
            sims = embeddings.cosine_matrix(query_vector[None, :], vectors[path])[0]
            names = symbol_names.get(path, [])
            order = np.argsort(-sims)
            closest = [n for i in order if i < len(names) and (n := names[int(i)])][:2]
        files.append(
            BundleFile(path=path, score=round(expanded[path], 6), reasons=reasons, symbols=closest)
        )
    return RetrievalBundle(query=query, index_version=index.version, files=files)


def unknown_paths(paths: Iterable[str], index: RepoIndex) -> list[str]:
    """Paths that are not files of the indexed snapshot (a planner or model made them up)."""
    indexed = set(index.paths())
    return sorted({p for p in paths if p not in indexed})
