"""The review-economy evaluation set: release pairs drawn by :mod:`bench.eval_sets`.

A drawn PyPI pair (minor-line boundary, seed :data:`SEED`) is *eligible* when both
releases ship a ``.tar.gz`` sdist, and the diff between them is a pull request a team
would review: at least :data:`MIN_SOURCES` changed Python files with added lines (the
exploring model reads four) and at most :data:`MAX_FILES` changed files in all. Every
decision and its reason is cached in ``bench/.work/review-economy-eligibility/``, so a
rerun replays the draw without fetching again. Packages alternate between the tuning
and the held-out half in draw order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.eval_sets import RegistryError, ReleasePair, sample_pairs
from bench.eval_sets.registry import download_sdist
from bench.impact.errors import BenchError
from bench.impact.fetch import python_sdist
from bench.impact.repos import BASE_REF, HEAD_REF, every_file, git, release_pair_repo
from bench.review.conversation import changed_sources

SEED = 29
"""The issue that asked for sampled sets; any fixed number would do."""
MIN_SOURCES = 4
MAX_FILES = 150
RULES = "1"
"""Bump when eligibility changes: cached decisions of another version are redone."""


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _sdist(downloads: Path, package: str, version: str) -> Path:
    """The release's sdist, straight from PyPI when it lists one, else through pip."""
    try:
        found = download_sdist(package, version, downloads)
    except RegistryError as err:
        raise BenchError(str(err)) from err
    return found if found is not None else python_sdist(downloads, package, version)


def pair_repo(root: Path, pair: ReleasePair) -> Path:
    """The two-commit repository of ``pair`` (built once, reused afterwards)."""
    downloads = root / "downloads"
    base = _sdist(downloads, pair.package, pair.base)
    head = _sdist(downloads, pair.package, pair.head)
    name = f"economy-{pair.package}-{pair.base}-{pair.head}"
    return release_pair_repo(root / "repos" / name, base, head, every_file, pair.label)


def _verdict(root: Path, pair: ReleasePair) -> tuple[bool, str]:
    try:
        repo = pair_repo(root, pair)
    except BenchError as err:
        return False, f"not fetched: {err}"
    files = len(git(repo, "diff", "--name-only", "-M", BASE_REF, HEAD_REF).splitlines())
    sources = len(changed_sources(repo))
    if sources < MIN_SOURCES:
        return False, f"{sources} changed Python files with added lines (< {MIN_SOURCES})"
    if files > MAX_FILES:
        return False, f"{files} changed files (> {MAX_FILES})"
    return True, f"{files} changed files, {sources} Python"


def _eligible(root: Path, pair: ReleasePair) -> bool:
    cache = root / "review-economy-eligibility" / f"{pair.package}-{pair.base}-{pair.head}.json"
    if cache.is_file():
        known = json.loads(cache.read_text())
        if known.get("rules") == RULES:
            return bool(known["eligible"])
    _progress(f"eligibility of {pair.label}")
    ok, reason = _verdict(root, pair)
    _progress(f"  {'eligible' if ok else 'not eligible'}: {reason}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"rules": RULES, "eligible": ok, "reason": reason}))
    return ok


def draw(root: Path, count: int, seed: int = SEED) -> list[ReleasePair]:
    """``count`` eligible pairs in draw order, each labelled with its half."""
    return sample_pairs(
        "pypi", seed=seed, count=count, kind="minor", eligible=lambda p: _eligible(root, p)
    )
