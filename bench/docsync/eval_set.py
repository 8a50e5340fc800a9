"""The doc sync evaluation set: release pairs drawn by :mod:`bench.eval_sets`, with a seed.

A drawn PyPI pair is *eligible* when both releases ship an sdist (``.tar.gz``)
that pip fetches within :data:`FETCH_SECONDS`, the base ships docs (at least
:data:`MIN_DOCS` files of the default doc globs), the package's import root can be
found in it, and the old truth (:func:`bench.docsync.truth.truth_docs`) is not
empty: upstream changed at least one doc between the two releases that names an API
object ``griffe check`` reports broken. Every decision, with its reason, is cached in
``bench/.work/docsync-eligibility/`` (a rerun fetches and checks nothing again).

Which pairs that gives depends on what pip can fetch and build where the draw runs, so
the draw is committed: ``eval_set.json`` beside this file holds the pairs of each half
and every candidate judged ineligible with its reason, and the bench reads it;
``python -m bench.docsync --redraw`` draws again here and rewrites it, saying how the new
draw differs. ``--extra-tuning N`` (:func:`extend_tuning`) leaves the held-out half as
committed: it retires tuning pairs the current rules call packaging-only and adds N tuning
pairs from a draw of its own; ``--extra-held-out N`` adds never-seen held-out pairs.
``--round 2`` makes a later round of either draw (:data:`EXTRA_DRAWS`), over the packages no
earlier draw looked at.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from bench.docsync.repo import build_repo, griffe_objects
from bench.docsync.truth import archive_texts, symbol_names, truth_docs
from bench.eval_sets import Half, LineKind, ReleasePair, popular_packages, sample_pairs
from bench.eval_sets.registry import RegistryError, download_sdist
from bench.impact.errors import BenchError
from bench.impact.fetch import _cached_sdist
from bench.impact.layout import WorkDir
from bench.impact.pairs import PythonPair
from prflow.docsync.doc_index import DocGlobs

SEED = 29
"""The issue that asked for the set; any fixed number would do."""
EXTRA_SEED_OFFSET = 100
"""The extra tuning draw's seed is the set's seed plus this (``--extra-tuning``)."""
HELD_OUT_SEED_OFFSET = 200
"""The extra held-out draw's seed is the set's seed plus this (``--extra-held-out``)."""
ROUND_SEED_STEP = 200
"""Each later round of extra draws (``--round 2``) adds this to both offsets: round 2's
tuning draw uses seed + 300, its held-out draw seed + 400; round 3's held-out draw (no
tuning draw of its own) seed + 600."""
EXTRA_DRAWS = (
    "extra_tuning",
    "extra_held_out",
    "extra_tuning_2",
    "extra_held_out_2",
    "extra_held_out_3",
    "extra_held_out_4",
    "extra_held_out_5",
    "extra_held_out_6",
    "extra_held_out_7",
    "extra_held_out_8",
    "extra_held_out_9",
)
"""The committed file's keys of the extra draws, in the order they were drawn: each later one
avoids every package an earlier one looked at, and the set reads their pairs in this order."""
COUNT = 20
KIND: LineKind = "major"
"""Major-line boundaries: where upstream breaks APIs and rewrites docs alongside."""
FETCH_SECONDS = 300
MIN_DOCS = 3
"""A release ships docs when it has at least this many doc files (a README alone is not docs);
the head must keep at least this many of the base's (else the pair measures packaging)."""
RULES = "3"
"""Bump when eligibility or the truth changes: cached decisions of another version are redone."""
MANIFEST = Path(__file__).resolve().parent / "eval_set.json"
"""The committed draw: every pair with its half, and every candidate judged ineligible with
the reason. Eligibility depends on what pip can fetch and build where the draw runs, so
the bench reads the set from here instead of drawing it again (``--redraw`` does)."""
TUNED_IN_ROUND_ONE = frozenset({"gunicorn", "requests-oauthlib", "sqlalchemy"})
"""Committed held-out packages the first round tuned on (another machine drew them into its
tuning half): the bench also scores the held-out half without them."""
_NOT_PACKAGES = re.compile(r"^(tests?|testing|docs?|examples?|benchmarks?|scripts?|tools?)$")


@dataclass(frozen=True)
class DocPair:
    """An eligible pair: what the bench runs, and which half it is in."""

    pair: PythonPair
    half: Half
    truth: frozenset[str]
    broken: int
    """How many API objects griffe reports broken."""


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def committed_sdist(downloads: Path, package: str, version: str) -> Path:
    """The sdist of a pair the committed draw already judged eligible: fetched straight from
    PyPI (no metadata build, which for pandas 2.3.3 can outlast :data:`FETCH_SECONDS` on a
    busy machine), by :func:`fetch_sdist` when the registry cannot serve it."""
    cached = _cached_sdist(downloads, package, version)
    if cached is not None:
        return cached
    try:
        fetched = download_sdist(package, version, downloads)
    except RegistryError:
        fetched = None
    return fetched if fetched is not None else fetch_sdist(downloads, package, version)


def fetch_sdist(downloads: Path, package: str, version: str) -> Path:
    """The ``.tar.gz`` sdist of ``package==version`` via ``pip download`` (cached), bounded
    in time: a release whose metadata needs a long native build is not eligible.

    pip prepares an sdist's metadata before it keeps it; in a venv that already holds the
    common build backends (:data:`BUILD_BACKENDS`) that takes seconds without build
    isolation, instead of a fresh build environment per archive. A release those
    backends cannot prepare is fetched again the ordinary, isolated way."""
    cached = _cached_sdist(downloads, package, version)
    if cached is not None:
        return cached
    downloads.mkdir(parents=True, exist_ok=True)
    command = ["-m", "pip", "download", "--no-deps", "--no-binary", package, "--quiet"]
    command += ["--dest", str(downloads), f"{package}=={version}"]
    attempts = [[str(_fetch_python(downloads.parent)), *command, "--no-build-isolation"]]
    attempts.append([sys.executable, *command])
    detail = "none"
    for attempt in attempts:
        try:
            done = subprocess.run(
                attempt, capture_output=True, text=True, check=False, timeout=FETCH_SECONDS
            )
        except subprocess.TimeoutExpired:
            detail = f"pip download took over {FETCH_SECONDS}s"
            continue
        found = _cached_sdist(downloads, package, version)
        if done.returncode == 0 and found is not None:
            return found
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        detail = lines[-1] if lines else detail
    raise BenchError(f"no .tar.gz sdist of {package}=={version}: {detail}")


BUILD_BACKENDS = (
    "setuptools",
    "wheel",
    "setuptools-scm",
    "hatchling",
    "hatch-vcs",
    "hatch-fancy-pypi-readme",
    "flit-core",
    "poetry-core",
    "pdm-backend",
)


def _fetch_python(root: Path) -> Path:
    """The interpreter of the bench's fetch venv (made once, with :data:`BUILD_BACKENDS`)."""
    venv = root / "fetch-venv"
    python = venv / "bin" / "python"
    if not (venv / "backends-installed").is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        install = [str(python), "-m", "pip", "install", "--quiet", *BUILD_BACKENDS]
        subprocess.run(install, check=True, capture_output=True)
        (venv / "backends-installed").touch()
    return python


def import_root(archive: Path, package: str) -> tuple[str, str] | None:
    """(import package, search path) of an sdist: ``top_level.txt`` when it names one
    package directory, else the package directory (top level, ``src/`` or ``lib/``) whose
    name is closest to the distribution's."""
    with tarfile.open(archive) as tar:
        names = ["/".join(PurePosixPath(m.name).parts[1:]) for m in tar.getmembers()]
        top_level: list[str] = []
        for member in tar.getmembers():
            if member.name.endswith(".egg-info/top_level.txt") and member.isfile():
                data = tar.extractfile(member)
                if data is not None:
                    top_level = data.read().decode("utf-8", "replace").split()
                break
    inits = {n.removesuffix("/__init__.py") for n in names if n.endswith("/__init__.py")}
    roots: dict[str, str] = {}
    for path in sorted(inits):
        parts = path.split("/")
        if len(parts) == 1:
            roots.setdefault(parts[0], ".")
        elif len(parts) == 2 and parts[0] in ("src", "lib", "python"):
            roots.setdefault(parts[1], parts[0])
    roots = {name: where for name, where in roots.items() if not _NOT_PACKAGES.match(name)}
    named = [name for name in top_level if name in roots]
    if len(named) == 1:
        return named[0], roots[named[0]]
    wanted = re.sub(r"[-_.]+", "_", package).lower()
    stems = (wanted, wanted.removeprefix("python_"), wanted.removeprefix("py"))
    for name in sorted(roots):
        if name.lower() in stems:
            return name, roots[name]
    if len(roots) == 1:
        name = next(iter(roots))
        return name, roots[name]
    return None


def packaging_only(base_docs: Mapping[str, str], head_docs: Mapping[str, str]) -> str | None:
    """Why a pair measures packaging rather than doc sync, or None: the head release keeps
    fewer than :data:`MIN_DOCS` of the base's doc files (tox 4.0.0's sdist ships none, so every
    doc reads as "removed upstream" and the "PR" deletes them)."""
    kept = len(base_docs.keys() & head_docs.keys())
    if kept >= MIN_DOCS:
        return None
    return f"the head keeps {kept} of the base's {len(base_docs)} docs"


class Eligibility:
    """The bench's ``eligible`` test, each decision kept on disk (one file per pair, so
    several processes may decide the candidates of one draw ahead of it)."""

    def __init__(self, work: WorkDir) -> None:
        self.work = work
        self.folder = work.root / "docsync-eligibility"

    def _file(self, pair: ReleasePair) -> Path:
        slug = re.sub(r"[^A-Za-z0-9.]+", "-", f"{pair.package}-{pair.base}-{pair.head}")
        return self.folder / f"{slug}.json"

    def decision(self, pair: ReleasePair) -> dict[str, object]:
        path = self._file(pair)
        if path.is_file():
            loaded: dict[str, object] = json.loads(path.read_text())
            if loaded.get("rules") == RULES:
                return loaded
        self.folder.mkdir(parents=True, exist_ok=True)
        pending = path.with_suffix(".pending")
        try:
            pending.touch(exist_ok=False)
        except FileExistsError:  # another process decides it: wait for its answer
            while pending.exists() and not path.is_file():
                time.sleep(2)
            return self.decision(pair)
        try:
            decided = self._decide(pair)
            path.write_text(json.dumps(decided, indent=1, sort_keys=True))
        finally:
            pending.unlink()
        return decided

    def __call__(self, pair: ReleasePair) -> bool:
        decision = self.decision(pair)
        _progress(f"{pair.label}: {decision['reason']}")
        return bool(decision["eligible"])

    def _decide(self, pair: ReleasePair) -> dict[str, object]:
        def no(reason: str) -> dict[str, object]:
            return {"rules": RULES, "eligible": False, "reason": reason}

        _progress(f"checking {pair.label}")
        globs = DocGlobs()
        try:
            base = fetch_sdist(self.work.downloads, pair.package, pair.base)
            base_docs = archive_texts(base, globs)
            if len(base_docs) < MIN_DOCS:
                return no(f"ships {len(base_docs)} docs")
            head = fetch_sdist(self.work.downloads, pair.package, pair.head)
        except BenchError as err:
            return no(str(err))
        head_docs = archive_texts(head, globs)
        packaging = packaging_only(base_docs, head_docs)
        if packaging is not None:
            return no(packaging)
        if not any(head_docs.get(path) != text for path, text in base_docs.items()):
            return no(f"no doc changed ({len(base_docs)} docs)")
        root = import_root(head, pair.package)
        if root is None:
            return no("no import package found in the sdist")
        python_pair = PythonPair(pair.package, pair.base, pair.head, root[0], root[1])
        try:
            repo = build_repo(python_pair, self.work, base, head)
            broken = griffe_objects(repo, python_pair)
        except BenchError as err:
            return no(str(err))
        truth = truth_docs(base_docs, head_docs, symbol_names(broken))
        if not truth:
            return no(f"no changed doc names one of {len(broken)} broken objects")
        return {
            "rules": RULES,
            "eligible": True,
            "reason": f"{len(truth)} truth docs, {len(broken)} broken objects",
            "import_package": root[0],
            "search_path": root[1],
            "truth": sorted(truth),
            "broken": len(broken),
        }

    def doc_pair(self, pair: ReleasePair) -> DocPair:
        decision = self.decision(pair)
        truth = decision["truth"]
        assert isinstance(truth, list)
        return DocPair(
            PythonPair(
                pair.package,
                pair.base,
                pair.head,
                import_package=str(decision["import_package"]),
                search_path=str(decision["search_path"]),
            ),
            pair.half,
            frozenset(str(t) for t in truth),
            int(str(decision["broken"])),
        )


def _judge_noting_refusals(
    eligible: Eligibility, refused: list[dict[str, str]]
) -> Callable[[ReleasePair], bool]:
    """``eligible`` as the sampler's test, each refused candidate noted with its reason."""

    def judged(pair: ReleasePair) -> bool:
        if eligible(pair):
            return True
        reason = str(eligible.decision(pair)["reason"])
        refused.append(
            {"package": pair.package, "base": pair.base, "head": pair.head, "reason": reason}
        )
        return False

    return judged


def pair_record(item: DocPair) -> dict[str, object]:
    return {
        "package": item.pair.package,
        "base": item.pair.base_version,
        "head": item.pair.head_version,
        "half": item.half,
        "import_package": item.pair.import_package,
        "search_path": item.pair.search_path,
        "broken": item.broken,
        "truth": sorted(item.truth),
    }


def _from_record(record: dict[str, object]) -> DocPair:
    half = str(record["half"])
    assert half in ("tune", "held_out")
    truth = record["truth"]
    assert isinstance(truth, list)
    return DocPair(
        PythonPair(
            str(record["package"]),
            str(record["base"]),
            str(record["head"]),
            import_package=str(record["import_package"]),
            search_path=str(record["search_path"]),
        ),
        "tune" if half == "tune" else "held_out",
        frozenset(str(t) for t in truth),
        int(str(record["broken"])),
    )


def load_set(path: Path = MANIFEST) -> list[DocPair]:
    """The committed draw's pairs, in draw order."""
    if not path.is_file():
        raise BenchError(f"no doc sync evaluation set at {path}: run with --redraw")
    document = json.loads(path.read_text(encoding="utf-8"))
    retired = {_label(record) for record in document.get("retired", [])}
    pairs = [_from_record(r) for r in document["pairs"] if _label(r) not in retired]
    extra = [r for key in EXTRA_DRAWS for r in _records(document.get(key, {}), "pairs")]
    return pairs + [_from_record(record) for record in extra if isinstance(record, dict)]


def _label(record: Mapping[str, object]) -> str:
    return f"{record['package']} {record['base']}→{record['head']}"


def redraw(
    work: WorkDir,
    *,
    seed: int = SEED,
    count: int = COUNT,
    progress: Callable[[str], None] = _progress,
) -> tuple[list[DocPair], list[dict[str, str]]]:
    """Draw the set again here: the eligible pairs in draw order, and every candidate the
    draw judged ineligible (``package``, ``base``, ``head``, ``reason``), in the order asked.
    Decisions cached in ``bench/.work/docsync-eligibility/`` are reused (delete it to decide
    every candidate again)."""
    eligible = Eligibility(work)
    refused: list[dict[str, str]] = []

    judged = _judge_noting_refusals(eligible, refused)

    drawn = sample_pairs("pypi", seed=seed, count=count, eligible=judged, kind=KIND)
    progress(f"drew {len(drawn)} pairs with seed {seed}")
    return [eligible.doc_pair(pair) for pair in drawn], refused


def write_set(
    drawn: list[DocPair],
    refused: list[dict[str, str]],
    *,
    seed: int,
    count: int,
    path: Path = MANIFEST,
) -> None:
    document = {
        "seed": seed,
        "count": count,
        "kind": KIND,
        "rules": RULES,
        "eligible": (
            f"both sdists fetch with pip within {FETCH_SECONDS}s, the base ships >= {MIN_DOCS} "
            "docs, the import package is found, and >= 1 changed doc names a griffe-broken "
            "object (bench.docsync.truth.truth_docs)"
        ),
        "pairs": [pair_record(item) for item in drawn],
        "ineligible": refused,
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def docsync_set(
    work: WorkDir,
    *,
    seed: int = SEED,
    count: int = COUNT,
    redrawn: bool = False,
    manifest: Path = MANIFEST,
    progress: Callable[[str], None] = _progress,
) -> list[DocPair]:
    """The evaluation set: the committed draw, unless ``redrawn`` or another seed or count
    is asked for (then drawn here; a redraw of the default seed and count is committed to
    ``manifest``, after :func:`drift` says how it differs from the one it replaces)."""
    if not redrawn and seed == SEED and count == COUNT:
        return load_set(manifest)
    drawn, refused = redraw(work, seed=seed, count=count, progress=progress)
    if seed == SEED and count == COUNT:
        if manifest.is_file():
            for note in drift(drawn, load_set(manifest)):
                progress(f"the redraw differs from the committed set: {note}")
        write_set(drawn, refused, seed=seed, count=count, path=manifest)
        progress(f"wrote {manifest}")
    return drawn


def drift(drawn: list[DocPair], committed: list[DocPair]) -> list[str]:
    """How ``drawn`` differs from the ``committed`` set: pairs missing, added, or in the other
    half (a held-out pair that lands in a tuning half must not be tuned on)."""
    before = {item.pair.label: item.half for item in committed}
    here = {item.pair.label: item.half for item in drawn}
    notes = [f"{label}: committed, not drawn here" for label in before if label not in here]
    for label, half in here.items():
        if label not in before:
            notes.append(f"{label}: drawn here ({half}), not in the committed set")
        elif before[label] != half:
            notes.append(f"{label}: committed in {before[label]}, drawn here in {half}")
    return notes


def extend_tuning(
    work: WorkDir,
    count: int,
    *,
    seed: int = SEED,
    round_number: int = 1,
    manifest: Path = MANIFEST,
    progress: Callable[[str], None] = _progress,
) -> list[DocPair]:
    """Add ``count`` tuning pairs to the committed set without touching its held-out half.

    A later round (``round_number`` 2: key ``extra_tuning_2``, seed + 300) draws over the
    packages no earlier draw looked at (:func:`looked_at_packages`) and retires nothing.

    Committed tuning pairs that the current eligibility calls packaging-only
    (:func:`packaging_only`) are retired from the set, with the reason. The extra pairs come
    from a draw of their own (``seed`` + :data:`EXTRA_SEED_OFFSET`, the same eligibility test
    and line kind) over the packages the committed draw never looked at, so no held-out
    package can come back; all of them go to the tuning half. An earlier extra draw is
    replaced. Returns the extra pairs."""
    if round_number > 1:
        return _later_round(work, count, "tune", round_number, seed, manifest, progress)
    document = json.loads(manifest.read_text(encoding="utf-8"))
    eligible = Eligibility(work)
    retired: list[dict[str, object]] = []
    for record in document["pairs"]:
        if record["half"] != "tune":
            continue
        package, base, head = str(record["package"]), str(record["base"]), str(record["head"])
        base_docs = archive_texts(fetch_sdist(work.downloads, package, base), DocGlobs())
        head_docs = archive_texts(fetch_sdist(work.downloads, package, head), DocGlobs())
        reason = packaging_only(base_docs, head_docs)
        if reason is not None:
            retired.append({"package": package, "base": base, "head": head, "reason": reason})
            progress(f"retired {_label(record)} from the tuning half: {reason}")
    looked_at = {str(r["package"]) for r in [*document["pairs"], *document["ineligible"]]}
    extra, refused = _extra_draw(eligible, seed + EXTRA_SEED_OFFSET, count, looked_at, "tune")
    document["retired"] = retired
    document["extra_tuning"] = {
        "seed": seed + EXTRA_SEED_OFFSET,
        "count": count,
        "rules": RULES,
        "eligible": "as the set's draw, and the head keeps >= "
        f"{MIN_DOCS} of the base's docs (bench.docsync.eval_set.packaging_only)",
        "drawn_from": "packages the committed draw did not look at (neither a pair nor "
        "judged ineligible); every pair goes to the tuning half",
        "pairs": [pair_record(item) for item in extra],
        "ineligible": refused,
    }
    manifest.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
    progress(f"added {len(extra)} tuning pairs to {manifest}")
    return extra


def _extra_draw(
    eligible: Eligibility, seed: int, count: int, looked_at: set[str], half: Half
) -> tuple[list[DocPair], list[dict[str, str]]]:
    """``count`` pairs drawn with ``seed`` from the packages not in ``looked_at``, all put in
    ``half``, and every candidate judged ineligible with its reason."""
    refused: list[dict[str, str]] = []
    judged = _judge_noting_refusals(eligible, refused)
    rest = [name for name in popular_packages("pypi") if name not in looked_at]
    drawn = sample_pairs("pypi", seed=seed, count=count, eligible=judged, kind=KIND, packages=rest)
    return [replace(eligible.doc_pair(pair), half=half) for pair in drawn], refused


def draw_key(half: Half, round_number: int = 1) -> str:
    """The committed file's key of an extra draw: ``extra_tuning``, ``extra_held_out_2``..."""
    key = "extra_tuning" if half == "tune" else "extra_held_out"
    return key if round_number == 1 else f"{key}_{round_number}"


def draw_seed(half: Half, round_number: int = 1, *, seed: int = SEED) -> int:
    """The seed of an extra draw: + 100 (tuning) or + 200 (held out), + 200 per later round."""
    offset = EXTRA_SEED_OFFSET if half == "tune" else HELD_OUT_SEED_OFFSET
    return seed + offset + ROUND_SEED_STEP * (round_number - 1)


def extra_held_out_labels(manifest: Path = MANIFEST, key: str = "extra_held_out") -> set[str]:
    """The labels (``pkg base→head``) of one extra draw's pairs (by default the first extra
    held-out draw's), if any."""
    if not manifest.is_file():
        return set()
    document = json.loads(manifest.read_text(encoding="utf-8"))
    draw = document.get(key, {})
    return {_label(r) for r in _records(draw, "pairs") if isinstance(r, Mapping)}


def looked_at_packages(document: Mapping[str, object], draw: str = "extra_held_out") -> set[str]:
    """Every package the committed draw and the extra draws made before ``draw`` (in
    :data:`EXTRA_DRAWS` order) looked at: their pairs and the candidates they judged
    ineligible (``draw`` must not meet them again; redoing it gives the same pairs)."""
    records: list[object] = [*_records(document, "pairs"), *_records(document, "ineligible")]
    for key in EXTRA_DRAWS[: EXTRA_DRAWS.index(draw)]:
        records += [
            *_records(document.get(key), "pairs"),
            *_records(document.get(key), "ineligible"),
        ]
    return {str(r["package"]) for r in records if isinstance(r, Mapping)}


def _records(document: object, key: str) -> list[object]:
    found = document.get(key, []) if isinstance(document, Mapping) else []
    return list(found) if isinstance(found, list) else []


def extend_held_out(
    work: WorkDir,
    count: int,
    *,
    seed: int = SEED,
    round_number: int = 1,
    manifest: Path = MANIFEST,
    progress: Callable[[str], None] = _progress,
) -> list[DocPair]:
    """Add ``count`` never-seen pairs to the held-out half.

    A later round (``round_number`` 2: key ``extra_held_out_2``, seed + 400) draws over the
    packages no earlier draw looked at, the second extra tuning draw's included.

    The committed held-out half is small and the first round tuned on three of its pairs
    (another machine drew them into its tuning half), so a fresh draw of its own
    (``seed`` + :data:`HELD_OUT_SEED_OFFSET`, the same eligibility test and line kind) over
    the packages neither the committed draw nor the extra tuning draw looked at (pairs or
    judged ineligible) adds pairs no rule was made on; all of them go to the held-out half.
    An earlier extra held-out draw is replaced. Returns the extra pairs."""
    if round_number > 1:
        return _later_round(work, count, "held_out", round_number, seed, manifest, progress)
    document = json.loads(manifest.read_text(encoding="utf-8"))
    eligible = Eligibility(work)
    held_seed = seed + HELD_OUT_SEED_OFFSET
    looked_at = looked_at_packages(document)
    extra, refused = _extra_draw(eligible, held_seed, count, looked_at, "held_out")
    document["extra_held_out"] = {
        "seed": held_seed,
        "count": count,
        "rules": RULES,
        "eligible": "as the set's draw, and the head keeps >= "
        f"{MIN_DOCS} of the base's docs (bench.docsync.eval_set.packaging_only)",
        "drawn_from": "packages neither the committed draw nor the extra tuning draw looked "
        "at (neither a pair nor judged ineligible); every pair goes to the held-out half",
        "pairs": [pair_record(item) for item in extra],
        "ineligible": refused,
    }
    manifest.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
    progress(f"added {len(extra)} held-out pairs to {manifest}")
    return extra


def _later_round(
    work: WorkDir,
    count: int,
    half: Half,
    round_number: int,
    seed: int,
    manifest: Path,
    progress: Callable[[str], None],
) -> list[DocPair]:
    """A later round's extra draw into ``half``, stored under :func:`draw_key`."""
    key = draw_key(half, round_number)
    if key not in EXTRA_DRAWS:
        raise BenchError(f"no extra draw round {round_number} (known: {', '.join(EXTRA_DRAWS)})")
    document = json.loads(manifest.read_text(encoding="utf-8"))
    looked_at = looked_at_packages(document, key)
    draw = draw_seed(half, round_number, seed=seed)
    extra, refused = _extra_draw(Eligibility(work), draw, count, looked_at, half)
    document[key] = {
        "seed": draw,
        "count": count,
        "rules": RULES,
        "eligible": "as the set's draw, and the head keeps >= "
        f"{MIN_DOCS} of the base's docs (bench.docsync.eval_set.packaging_only)",
        "drawn_from": f"packages no earlier draw looked at ({len(looked_at)}: the committed "
        f"draw and {', '.join(EXTRA_DRAWS[: EXTRA_DRAWS.index(key)])}, pairs or judged "
        f"ineligible); every pair goes to the {'tuning' if half == 'tune' else 'held-out'} half",
        "pairs": [pair_record(item) for item in extra],
        "ineligible": refused,
    }
    manifest.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
    progress(f"added {len(extra)} pairs to {manifest} under {key}")
    return extra
