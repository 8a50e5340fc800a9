"""Retrieval precision and recall on directives taken from real upstream changes.

Each case in ``directives.json`` is one changelog entry of a real release
(the directive) and the non-test files the release changed for that entry
(the truth, hand-checked against the diff of the two sdists; see
``README.md`` beside this file). The base release is indexed with tests,
docs and examples excluded, as a user points a refactor at the code; the
directive is retrieved against it. New files are not in the base index, so
they are left out of the truth.

Anchor: plain BM25 (``rank_bm25``) over each file's whole text split at
non-word characters, cut to the same bundle size as prflow's bundle for that
directive. Printed: per-case bundles, macro precision and recall for the
tuning half, the held-out half and all cases, and last prflow's F1 over the
anchor's on all cases.

Split: within each package, in file order, even-numbered cases are the tuning
half and odd-numbered ones the held-out half (:func:`half`). Retrieval rules
and settings may only be adjusted by looking at tuning-half cases.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, TypeAdapter
from rank_bm25 import BM25Okapi

from bench.impact.fetch import python_sdist
from bench.impact.layout import fresh_dir
from bench.impact.repos import every_file, unpack_release
from prflow.analysis.parse_cache import MemoryParseCache
from prflow.refactor_index.build import IndexCaches, build_index
from prflow.refactor_index.models import RepoIndex
from prflow.refactor_index.retrieval import RetrievalSettings
from prflow.refactor_index.search import retrieve
from prflow.refactor_index.vectors import MemoryVectorCache
from prflow.source_tree import DirectoryTree

CASES = Path(__file__).with_name("directives.json")
EXCLUDE = ["tests/", "docs/", "examples/", "artwork/", "scripts/", "setup.py", "conftest.py"]


class Case(BaseModel):
    package: str
    base: str
    head: str
    directive: str
    truth: list[str]
    note: str = ""


@dataclass(frozen=True)
class Scored:
    case: Case
    bundle: list[str]
    anchor: list[str]
    half: str = "tune"

    @staticmethod
    def precision(found: list[str], truth: list[str]) -> float:
        return len(set(found) & set(truth)) / len(found) if found else 0.0

    @staticmethod
    def recall(found: list[str], truth: list[str]) -> float:
        return len(set(found) & set(truth)) / len(truth)


def load_cases() -> list[Case]:
    return TypeAdapter(list[Case]).validate_json(CASES.read_bytes())


def half(cases: list[Case], position: int) -> str:
    """``tune`` or ``held``: alternating per package, so both halves cover every package."""
    package = cases[position].package
    rank_in_package = sum(1 for c in cases[:position] if c.package == package)
    return "tune" if rank_in_package % 2 == 0 else "held"


def release_tree(work: Path, package: str, version: str) -> Path:
    archive = python_sdist(work / "downloads", package, version)
    tree = work / "repos" / f"{package.lower()}-{version}"
    if not (tree / ".unpacked").is_file():
        fresh_dir(tree)
        unpack_release(archive, tree, every_file)
        (tree / ".unpacked").write_text("")
    return tree


_TOKEN = re.compile(r"\w+")


def anchor_bundle(root: Path, index: RepoIndex, directive: str, size: int) -> list[str]:
    paths = index.paths()
    corpus = [
        _TOKEN.findall((root / p).read_text(errors="replace").lower()) or ["_"] for p in paths
    ]
    scores = BM25Okapi(corpus).get_scores(_TOKEN.findall(directive.lower()))
    ranked = sorted(zip(paths, scores, strict=True), key=lambda item: (-item[1], item[0]))
    return [path for path, _ in ranked[:size]]


def measure(work: Path, settings: RetrievalSettings) -> list[Scored]:
    cases = load_cases()
    results: list[Scored] = []
    indexes: dict[tuple[str, str], tuple[Path, RepoIndex, IndexCaches]] = {}
    for position, case in enumerate(cases):
        key = (case.package, case.base)
        if key not in indexes:
            root = release_tree(work, case.package, case.base)
            caches = IndexCaches(MemoryParseCache(), MemoryVectorCache())
            indexes[key] = (root, build_index(DirectoryTree(root), caches, exclude=EXCLUDE), caches)
        root, index, caches = indexes[key]
        missing = [p for p in case.truth if p not in index.paths()]
        if missing:
            raise ValueError(f"truth of {case.directive!r} names unindexed files: {missing}")
        bundle = retrieve(case.directive, index, caches, settings).paths()
        anchor = anchor_bundle(root, index, case.directive, max(1, len(bundle)))
        results.append(Scored(case=case, bundle=bundle, anchor=anchor, half=half(cases, position)))
    return results


def summary(results: list[Scored], pick: str) -> tuple[float, float]:
    found = [getattr(r, pick) for r in results]
    precision = sum(Scored.precision(f, r.case.truth) for f, r in zip(found, results, strict=True))
    recall = sum(Scored.recall(f, r.case.truth) for f, r in zip(found, results, strict=True))
    return precision / len(results), recall / len(results)


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def report(results: list[Scored], settings: RetrievalSettings) -> list[str]:
    lines = []
    for r in results:
        hit = set(r.bundle) & set(r.case.truth)
        lines.append(
            f"{r.half} {r.case.package} {r.case.head}: {len(hit)}/{len(r.case.truth)} truth in "
            f"{len(r.bundle)} retrieved | {r.case.directive[:70]}"
        )
    packages = sorted({r.case.package for r in results})
    sizes = [len(r.bundle) for r in results]
    lines += [
        f"{len(results)} directives from {len(packages)} repositories ({', '.join(packages)})",
        f"bundle: at most {settings.max_files} files, min ratio {settings.min_ratio}, "
        f"knee ratio {settings.knee_ratio}; mean size {sum(sizes) / len(sizes):.2f}",
    ]
    ratio = 0.0
    for name, part in (
        ("tuning half", [r for r in results if r.half == "tune"]),
        ("held-out half", [r for r in results if r.half == "held"]),
        ("all", results),
    ):
        if not part:
            continue
        p, rc = summary(part, "bundle")
        ap, arc = summary(part, "anchor")
        ratio = f1(p, rc) / max(f1(ap, arc), 1e-9)
        lines += [
            f"{name} ({len(part)}): prflow precision {p:.2f}, recall {rc:.2f}, F1 {f1(p, rc):.2f}"
            f" | anchor precision {ap:.2f}, recall {arc:.2f}, F1 {f1(ap, arc):.2f}"
            f" | ratio {ratio:.2f}x",
        ]
    lines.append(f"F1 prflow / anchor (all, goal precision and recall >= 0.8): {ratio:.2f}x")
    return lines


def dump(results: list[Scored], path: Path) -> None:
    rows = [
        {
            "half": r.half,
            "directive": r.case.directive,
            "truth": r.case.truth,
            "bundle": r.bundle,
            "anchor": r.anchor,
        }
        for r in results
    ]
    path.write_text(json.dumps(rows, indent=1))
