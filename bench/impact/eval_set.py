"""The impact evaluation set: release pairs drawn by ``bench.eval_sets``, not picked by hand.

``python -m bench.impact.eval_set [--seed N]`` draws release pairs from the
widely used PyPI and npm packages of :mod:`bench.eval_sets.packages` with a
fixed seed, keeps those this bench can judge (the eligibility tests below),
computes each pair's oracle (``oracles/``), and writes the draw to
``eval_set.json`` (committed), which ``bench.impact.accuracy --set sampled``
scores, tuning half and held-out half apart.

Eligible, Python (minor release lines, what users upgrade across): both releases
fetch with pip, as pure-Python wheels when PyPI lists one for both (no metadata
build: a tenth of an sdist's cost), else as sdists; one import package is found
(the archive's ``top_level.txt``, else the package named like the distribution,
else the largest) at the same place in both; it is pure Python (no C, Cython,
Rust or Fortran sources in it); griffe loads both releases and the corrected
oracle lists at least one break.

Eligible, npm (major release lines, where semver puts breaks): both tarballs
fetch with npm pack and ship ``.d.ts`` files, the TypeScript oracle checks the
main entry within its time limit and lists at least one break.

More tuning pairs (``--extra-npm-tuning N``) come from a further npm draw with its own
seed over the packages the set does not hold yet; they all go to the tuning half, so the
held-out half is never looked at while tuning and stays as first drawn. ``--mid-python-tuning
N`` does the same for PyPI packages of at least :data:`MID_MODULES` modules.

A size stratum guarantees large packages without naming any: a first draw,
with its own seed offset, keeps only Python pairs whose package has at least
:data:`LARGE_MODULES` modules, two of them, so each half holds one (the sampler
alternates halves by package). The general draw then runs over the remaining
packages.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bench.eval_sets import Ecosystem, ReleasePair, by_half, popular_packages, sample_pairs
from bench.eval_sets.registry import DEFAULT_CACHE, _document
from bench.impact.errors import BenchError
from bench.impact.fetch import npm_tarball, python_release
from bench.impact.layout import DEFAULT_ROOT, WorkDir
from bench.impact.oracle_store import python_oracle, typescript_oracle
from bench.impact.pairs import Pair, PythonPair, TypeScriptPair
from bench.impact.repos import archive_members

MANIFEST = Path(__file__).resolve().parent / "eval_set.json"
SEED = 29
PYTHON_COUNT = 20
TYPESCRIPT_COUNT = 20
LARGE_MODULES = 1000
LARGE_COUNT = 2
EXTRA_SEED_OFFSET = 100
"""The extra npm tuning draw's seed is the set's seed plus this (issue 29, TypeScript)."""
LAYOUT_SEED_OFFSET = 200
"""The layout draw's seed: the set's seed plus this (``--layout-npm-tuning``)."""
ENTRY_SEED_OFFSET = 300
"""The entry-shape draw's seed: the set's seed plus this (``--entry-npm-tuning``). The same
offset as :data:`MID_SEED_OFFSET` draws an independent order: the sampler seeds by ecosystem."""
MANY_DECLARATIONS = 200
"""A tarball with at least this many declaration files counts as a large typings tree."""
LARGE_SDIST_BYTES = 4_000_000
"""The stratum's first filter, from the registry's file list: smaller sdists are not fetched."""
MAX_SDIST_BYTES = 40_000_000
MID_SEED_OFFSET = 300
"""The mid-size tuning draw's seed: the set's seed plus this (``--mid-python-tuning``)."""
MID_MODULES = 150
"""The mid-size stratum's floor: packages with class hierarchies, dunders and re-exports."""
MID_SDIST_BYTES = 300_000
"""The mid-size stratum's first filter, from the registry's file list."""
_COMPILED = (".c", ".cc", ".cpp", ".cxx", ".pyx", ".rs", ".f", ".f90")
_NOT_API = {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks"}
_NOT_API |= {"bench", "scripts", "tools", "build", "ci", "setup", "conftest"}


@dataclass(frozen=True)
class DrawnPair:
    """One pair of the set, with what the bench needs to check it."""

    ecosystem: str
    package: str
    base: str
    head: str
    half: str
    stratum: str
    import_package: str = ""
    search_path: str = "."
    modules: int = 0
    oracle_objects: int = 0
    archive: str = "sdist"

    def as_pair(self) -> Pair:
        if self.ecosystem == "pypi":
            return PythonPair(
                self.package,
                self.base,
                self.head,
                import_package=self.import_package,
                search_path=self.search_path,
                archive=self.archive,
            )
        return TypeScriptPair(self.package, self.base, self.head)


@dataclass(frozen=True)
class PackageLayout:
    """Where the import package sits in an sdist, and how big it is."""

    search_path: str
    import_package: str
    modules: int
    compiled: bool


def _archive_files(archive: Path) -> tuple[list[str], set[str]]:
    """A release archive's file paths (an sdist's without its top directory) and the names
    its ``top_level.txt`` lists (``*.egg-info/`` in an sdist, ``*.dist-info/`` in a wheel)."""
    files: list[str] = []
    listed: set[str] = set()
    for path, read in archive_members(archive):
        files.append(path)
        if path.endswith("-info/top_level.txt") and path.count("/") <= 2:
            text = read().decode("utf-8", "replace")
            listed |= {line.strip() for line in text.splitlines() if line.strip()}
    return files, listed


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def locate_package(
    files: list[str], distribution: str, listed: set[str] | frozenset[str] = frozenset()
) -> PackageLayout | None:
    """The distribution's import package in an sdist's file list (paths without the top dir).

    Top-level packages are directories with ``__init__.py`` whose parent has none, outside
    test, doc and example trees. Preferred: one the sdist's ``top_level.txt`` (``listed``)
    names, then one named like the distribution (``python-dateutil`` -> ``dateutil``), then
    the one with the most modules.
    """
    present = set(files)
    packages: dict[str, str] = {}  # import name -> search path
    for path in files:
        if not path.endswith("/__init__.py"):
            continue
        directory = path.rpartition("/")[0]
        parent, _, name = directory.rpartition("/")
        if (parent and f"{parent}/__init__.py" in present) or not name.isidentifier():
            continue
        if any(part in _NOT_API for part in directory.split("/")):
            continue
        packages.setdefault(name, parent or ".")
    if not packages:
        return None
    wanted = {_normalized(distribution), _normalized(distribution).removeprefix("python_")}

    def modules_of(name: str) -> int:
        prefix = _prefix(packages[name], name)
        return sum(1 for p in files if p.startswith(prefix) and p.endswith(".py"))

    name = max(packages, key=lambda n: (n in listed, _normalized(n) in wanted, modules_of(n)))
    prefix = _prefix(packages[name], name)
    compiled = any(p.startswith(prefix) and p.endswith(_COMPILED) for p in files)
    return PackageLayout(packages[name], name, modules_of(name), compiled)


def _prefix(search_path: str, name: str) -> str:
    return f"{name}/" if search_path == "." else f"{search_path}/{name}/"


# --- eligibility ---------------------------------------------------------------------------


def _verdicts(work: WorkDir) -> Path:
    return work.root / "eligibility"


def _cached(work: WorkDir, pair: ReleasePair, test: str, decide: Callable[[], dict]) -> dict:  # type: ignore[type-arg]
    """A candidate's verdict for one test, kept on disk: a rerun draws the same set fast."""
    slug = re.sub(
        r"[^A-Za-z0-9.]+", "-", f"{test}-{pair.ecosystem}-{pair.package}-{pair.base}-{pair.head}"
    )
    path = _verdicts(work) / f"{slug}.json"
    if path.is_file():
        verdict: dict = json.loads(path.read_text())  # type: ignore[type-arg]
        return verdict
    try:
        verdict = decide()
    except BenchError as err:
        verdict = {"eligible": False, "reason": str(err)[:300]}
    except Exception as exc:  # griffe or a broken archive: the pair is not one the bench can judge
        verdict = {"eligible": False, "reason": f"{type(exc).__name__}: {str(exc)[:200]}"}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(verdict, sort_keys=True))
    return verdict


def _archive_kind(pair: ReleasePair) -> str:
    """``wheel`` when PyPI lists a pure-Python wheel of both releases (fetched as is), else
    ``sdist`` (a build-isolated metadata build per release: ten times slower)."""
    for version in (pair.base, pair.head):
        names = [f.get("filename", "") for f in _release_files(pair, version)]
        if not any(str(name).endswith("-none-any.whl") for name in names):
            return "sdist"
    return "wheel"


def _python_layout(work: WorkDir, pair: ReleasePair) -> dict:  # type: ignore[type-arg]
    archive = _archive_kind(pair)
    layouts = []
    for version in (pair.head, pair.base):
        release = python_release(work.downloads, pair.package, version, archive)
        files, listed = _archive_files(release)
        layout = locate_package(files, pair.package, listed)
        if layout is None:
            return {"eligible": False, "reason": f"no import package in the {version} {archive}"}
        layouts.append(layout)
    new, old = layouts
    if (old.search_path, old.import_package) != (new.search_path, new.import_package):
        return {"eligible": False, "reason": "the import package moved between the releases"}
    if old.compiled or new.compiled:
        return {"eligible": False, "reason": "not pure Python (extension sources in the package)"}
    modules = max(old.modules, new.modules)
    return {"eligible": True, **asdict(old), "modules": modules, "archive": archive}


def _head_size(work: WorkDir, pair: ReleasePair) -> dict:  # type: ignore[type-arg]
    """The newer release's module count alone: one download decides the size stratum."""
    release = python_release(work.downloads, pair.package, pair.head, _archive_kind(pair))
    files, listed = _archive_files(release)
    layout = locate_package(files, pair.package, listed)
    return {"eligible": layout is not None, "modules": layout.modules if layout else 0}


def _python_pair(pair: ReleasePair, layout: dict) -> PythonPair:  # type: ignore[type-arg]
    return PythonPair(
        pair.package,
        pair.base,
        pair.head,
        import_package=layout["import_package"],
        search_path=layout["search_path"],
        archive=layout.get("archive", "sdist"),
    )


def _release_files(pair: ReleasePair, version: str) -> list[dict]:  # type: ignore[type-arg]
    """The files PyPI lists for one release (from the sampler's cached registry document)."""
    releases = _document("pypi", pair.package, DEFAULT_CACHE).get("releases")
    files = releases.get(version, []) if isinstance(releases, dict) else []
    return [f for f in files if isinstance(f, dict)]


def _registry_says_no(pair: ReleasePair, minimum_sdist_bytes: int) -> str | None:
    """Why the registry's file list already rules the pair out (no download needed)."""
    for version in (pair.base, pair.head):
        files = _release_files(pair, version)
        wheels = [f["filename"] for f in files if f.get("packagetype") == "bdist_wheel"]
        if any(not name.endswith("-none-any.whl") for name in wheels):
            return "not pure Python (platform wheels)"
        sdists = [f for f in files if f.get("packagetype") == "sdist"]
        size = max((int(f.get("size") or 0) for f in sdists), default=0)
        if size > MAX_SDIST_BYTES:
            return f"sdist over {MAX_SDIST_BYTES // 1_000_000} MB"
        if size < minimum_sdist_bytes:
            return "sdist too small for the stratum"
    return None


def python_eligible(
    work: WorkDir, minimum_modules: int = 0, minimum_bytes: int | None = None
) -> Callable[[ReleasePair], bool]:
    """The Python test; ``minimum_modules`` makes it a size stratum's (its sdists at least
    ``minimum_bytes`` on the registry's file list, :data:`LARGE_SDIST_BYTES` by default)."""
    if minimum_bytes is None:
        minimum_bytes = LARGE_SDIST_BYTES if minimum_modules else 0
    too_small: set[str] = set()  # size belongs to the package: its other pairs are not fetched

    def test(pair: ReleasePair) -> bool:
        if pair.package in too_small or _registry_says_no(pair, minimum_bytes) is not None:
            return False
        if minimum_modules:
            size = _cached(work, pair, "size", lambda: _head_size(work, pair))
            if size.get("modules", 0) < minimum_modules:
                too_small.add(pair.package)
                return False
        layout = _cached(work, pair, "layout", lambda: _python_layout(work, pair))
        if layout.get("modules", minimum_modules) < minimum_modules:
            too_small.add(pair.package)
        if not layout["eligible"] or layout["modules"] < minimum_modules:
            return False
        print(f"eval set: {pair.label}: {layout['modules']} modules, oracle", file=sys.stderr)

        def breaks() -> dict:  # type: ignore[type-arg]
            objects = python_oracle(_python_pair(pair, layout), work)
            return {"eligible": bool(objects), "objects": len(objects), "reason": "no break"}

        return bool(_cached(work, pair, "oracle", breaks)["eligible"])

    return test


def _ts_breaks(work: WorkDir, pair: ReleasePair) -> dict:  # type: ignore[type-arg]
    for version in (pair.base, pair.head):
        files, _ = _archive_files(npm_tarball(work.downloads, pair.package, version))
        if not any(f.endswith(".d.ts") for f in files):
            return {"eligible": False, "reason": f"{version} ships no .d.ts"}
    print(f"eval set: {pair.label}: oracle", file=sys.stderr)
    stored, _ = typescript_oracle(
        TypeScriptPair(pair.package, pair.base, pair.head), work, anchor=False
    )
    found = len(set(stored["removed"]) | set(stored["broken"]))
    return {"eligible": found > 0, "objects": found, "reason": "no break"}


_REEXPORT = re.compile(
    r"^\s*export\s+(?:\*(?:\s+as\s+[\w$]+)?\s+from|(?:type\s+)?\{[^}]*\bas\b[^}]*\}\s*from)",
    re.MULTILINE,
)


def _conditions(value: object) -> set[str]:
    """Every condition key of an ``exports`` map (``types``, ``import``, ``require``, ...)."""
    if isinstance(value, dict):
        found = {k for k in value if not k.startswith(".")}
        for item in value.values():
            found |= _conditions(item)
        return found
    if isinstance(value, list):
        return set().union(*(_conditions(item) for item in value)) if value else set()
    return set()


def declaration_layout(archive: Path) -> list[str]:
    """What a release tarball's typings are made of, among the layouts the TypeScript half
    of issue 29 misses on: an ``exports`` map with a ``types`` condition or subpaths,
    ``.d.mts``/``.d.cts`` files, ``export * from`` / ``export {x as y} from`` chains in its
    declarations, or one bundled declaration file (over 100 kB). Empty when none."""
    traits: set[str] = set()
    declarations = 0
    for path, read in archive_members(archive):
        if path == "package.json":
            try:
                manifest = json.loads(read().decode("utf-8", "replace"))
            except json.JSONDecodeError:
                continue
            exports = manifest.get("exports") if isinstance(manifest, dict) else None
            if "types" in _conditions(exports):
                traits.add("exports-types")
            if isinstance(exports, dict) and sum(1 for k in exports if k.startswith("./")) > 1:
                traits.add("subpaths")
        elif path.endswith((".d.ts", ".d.mts", ".d.cts")) and "node_modules/" not in path:
            declarations += 1
            if path.endswith((".d.mts", ".d.cts")):
                traits.add("d.mts/d.cts")
            text = read()
            if len(text) > 100_000:
                traits.add("bundled")
            if _REEXPORT.search(text.decode("utf-8", "replace")):
                traits.add("re-export chain")
    return sorted(traits) if declarations else []


_EXPORT_EQUALS = re.compile(r"^\s*export\s*=\s*[\w$.]+\s*;?", re.MULTILINE)
_UMD = re.compile(r"^\s*export\s+as\s+namespace\s+[\w$]+", re.MULTILINE)
_IMPORTED = re.compile(
    r"^\s*import\s+(?:\*\s+as\s+[\w$]+\s+from|[\w$]+\s*=\s*require\s*\()", re.MULTILINE
)


def _typings_entry(manifest: dict) -> str:  # type: ignore[type-arg]
    """The main entry's declaration file as ``moduleResolution: node`` reads it: ``types`` or
    ``typings``, else ``main`` with ``.d.ts``, else ``index.d.ts`` (a path in the tarball)."""
    for key in ("types", "typings"):
        value = manifest.get(key)
        if isinstance(value, str) and value.strip("./"):
            path = value.removeprefix("./")
            return path if path.endswith(".ts") else f"{path.removesuffix('.js')}.d.ts"
    main = manifest.get("main")
    if isinstance(main, str) and main.strip("./"):
        return re.sub(r"\.c?js$", "", main.removeprefix("./")) + ".d.ts"
    return "index.d.ts"


def entry_layout(archive: Path) -> list[str]:
    """What a release tarball's main typings entry is shaped like, among the shapes the
    earlier tuning draws held few of: an entry that is ``export =`` of a module it imports
    (``import * as x from``, ``import x = require``; the names live in another, often
    bundled, file), any ``export =`` entry, a UMD global (``export as namespace``), or a
    large typings tree (at least :data:`MANY_DECLARATIONS` declaration files). Empty when
    none."""
    traits: set[str] = set()
    declarations = 0
    texts: dict[str, str] = {}
    manifest: dict = {}  # type: ignore[type-arg]
    for path, read in archive_members(archive):
        if path == "package.json":
            try:
                loaded = json.loads(read().decode("utf-8", "replace"))
            except json.JSONDecodeError:
                continue
            manifest = loaded if isinstance(loaded, dict) else {}
        elif path.endswith((".d.ts", ".d.mts", ".d.cts")) and "node_modules/" not in path:
            declarations += 1
            if path.count("/") <= 3:
                texts[path] = read().decode("utf-8", "replace")
    if not declarations:
        return []
    entry = texts.get(_typings_entry(manifest), "")
    if _EXPORT_EQUALS.search(entry):
        traits.add("export-equals")
        if _IMPORTED.search(entry):
            traits.add("export-equals-imported")
    if _UMD.search(entry):
        traits.add("umd-namespace")
    if declarations >= MANY_DECLARATIONS:
        traits.add("many-declarations")
    return sorted(traits)


def typescript_eligible(
    work: WorkDir, layout: bool = False, entry: bool = False
) -> Callable[[ReleasePair], bool]:
    """The npm test; ``layout`` also asks the newer release for one of
    :func:`declaration_layout`'s traits, ``entry`` for one of :func:`entry_layout`'s
    (checked before the oracle runs)."""

    def test(pair: ReleasePair) -> bool:
        if layout:
            verdict = _cached(work, pair, "ts-layout", lambda: _layout_verdict(work, pair))
            if not verdict["eligible"]:
                return False
        if entry:
            verdict = _cached(work, pair, "ts-entry", lambda: _entry_verdict(work, pair))
            if not verdict["eligible"]:
                return False
        return bool(_cached(work, pair, "ts-oracle", lambda: _ts_breaks(work, pair))["eligible"])

    return test


def _layout_verdict(work: WorkDir, pair: ReleasePair) -> dict:  # type: ignore[type-arg]
    traits = declaration_layout(npm_tarball(work.downloads, pair.package, pair.head))
    return {"eligible": bool(traits), "traits": traits, "reason": "no such layout"}


def _entry_verdict(work: WorkDir, pair: ReleasePair) -> dict:  # type: ignore[type-arg]
    traits = entry_layout(npm_tarball(work.downloads, pair.package, pair.head))
    return {"eligible": bool(traits), "traits": traits, "reason": "no such entry"}


# --- the draw -----------------------------------------------------------------------------


def draw(
    work: WorkDir,
    seed: int = SEED,
    python_count: int = PYTHON_COUNT,
    npm_count: int = TYPESCRIPT_COUNT,
    npm_drawn: list[DrawnPair] | None = None,
) -> list[DrawnPair]:
    """The whole set: the large stratum, the other Python pairs, the npm pairs (``npm_drawn``
    when given: an earlier draw's, kept as they are)."""
    large = sample_pairs(
        "pypi", seed=seed + 1, count=LARGE_COUNT, eligible=python_eligible(work, LARGE_MODULES)
    )
    taken = {p.package for p in large}
    rest = [name for name in popular_packages("pypi") if name not in taken]
    python = sample_pairs(
        "pypi", seed=seed, count=python_count, eligible=python_eligible(work), packages=rest
    )
    drawn: list[DrawnPair] = []
    for stratum, pairs in (("large", large), ("python", python)):
        for pair in pairs:
            drawn.append(_described(work, pair, stratum))
    if npm_drawn is not None:
        return drawn + npm_drawn
    npm = sample_pairs(
        "npm", seed=seed, count=npm_count, eligible=typescript_eligible(work), kind="major"
    )
    return drawn + [_described(work, pair, "npm") for pair in npm]


def extra_tuning_pairs(
    taken: set[str],
    seed: int,
    count: int,
    eligible: Callable[[ReleasePair], bool],
    packages: list[str] | None = None,
    cache: Path = DEFAULT_CACHE,
    ecosystem: Ecosystem = "npm",
    offset: int = EXTRA_SEED_OFFSET,
) -> list[ReleasePair]:
    """More pairs for the tuning side only: a draw with its own seed (``seed`` + ``offset``,
    by default :data:`EXTRA_SEED_OFFSET`) over the packages not ``taken`` yet, by the
    same eligibility test and line kind as the set's own draw (npm major lines, PyPI minor
    lines). The held-out half stays as drawn; none of its packages can come back."""
    rest = [name for name in (packages or popular_packages(ecosystem)) if name not in taken]
    pairs = sample_pairs(
        ecosystem,
        seed=seed + offset,
        count=count,
        eligible=eligible,
        kind="major" if ecosystem == "npm" else "minor",
        packages=rest,
        cache=cache,
    )
    return [replace(pair, half="tune") for pair in pairs]


_STRATA = {"extra": "npm-extra", "layout": "npm-layout", "entry": "npm-entry"}
_OFFSETS = {"extra": EXTRA_SEED_OFFSET, "layout": LAYOUT_SEED_OFFSET, "entry": ENTRY_SEED_OFFSET}


def extra_tuning(
    work: WorkDir, drawn: list[DrawnPair], seed: int = SEED, count: int = 10, kind: str = "extra"
) -> list[DrawnPair]:
    """:func:`extra_tuning_pairs` for the committed set, described like its other pairs;
    ``kind`` ``layout``: the layout draw (its own seed offset, :func:`declaration_layout`
    asked too); ``entry``: the entry-shape draw (:func:`entry_layout`)."""
    taken = {p.package for p in drawn}
    eligible = typescript_eligible(work, layout=kind == "layout", entry=kind == "entry")
    pairs = extra_tuning_pairs(taken, seed, count, eligible, offset=_OFFSETS[kind])
    stratum = _STRATA[kind]
    return [_described(work, pair, stratum) for pair in pairs]


def extra_python_tuning(
    work: WorkDir, drawn: list[DrawnPair], seed: int = SEED, count: int = 6, large: int = 1
) -> list[DrawnPair]:
    """More PyPI tuning pairs, drawn as the set's own: first ``large`` pairs of packages with
    at least :data:`LARGE_MODULES` modules (seed + 100 + 1, as the set's stratum is seed + 1),
    then ``count`` more over the packages still untaken (seed + 100)."""
    taken = {p.package for p in drawn}
    big = extra_tuning_pairs(
        taken,
        seed,
        large,
        python_eligible(work, LARGE_MODULES),
        ecosystem="pypi",
        offset=EXTRA_SEED_OFFSET + 1,
    )
    taken |= {p.package for p in big}
    rest = extra_tuning_pairs(taken, seed, count, python_eligible(work), ecosystem="pypi")
    return [_described(work, pair, "python-extra-large") for pair in big] + [
        _described(work, pair, "python-extra") for pair in rest
    ]


def mid_python_tuning(
    work: WorkDir, drawn: list[DrawnPair], seed: int = SEED, count: int = 8
) -> list[DrawnPair]:
    """More PyPI tuning pairs of mid-size packages (at least :data:`MID_MODULES` modules,
    seed + :data:`MID_SEED_OFFSET`, packages not in the set yet): the shapes a large package's
    API has (class hierarchies, dunder methods, re-exports) where the size stratum finds no
    untaken package of 1,000 modules."""
    taken = {p.package for p in drawn}
    eligible = python_eligible(work, MID_MODULES, MID_SDIST_BYTES)
    pairs = extra_tuning_pairs(
        taken, seed, count, eligible, ecosystem="pypi", offset=MID_SEED_OFFSET
    )
    return [_described(work, pair, "python-mid") for pair in pairs]


def _described(work: WorkDir, pair: ReleasePair, stratum: str) -> DrawnPair:
    drawn = DrawnPair(pair.ecosystem, pair.package, pair.base, pair.head, pair.half, stratum)
    if pair.ecosystem != "pypi":
        oracle = _cached(work, pair, "ts-oracle", lambda: {})
        return replace(drawn, oracle_objects=oracle["objects"])
    layout = _cached(work, pair, "layout", lambda: {})
    return replace(
        drawn,
        import_package=layout["import_package"],
        search_path=layout["search_path"],
        modules=layout["modules"],
        archive=layout.get("archive", "sdist"),
        oracle_objects=_cached(work, pair, "oracle", lambda: {})["objects"],
    )


def load_set(path: Path = MANIFEST) -> list[DrawnPair]:
    """The committed draw (``python -m bench.impact.eval_set`` writes it)."""
    if not path.is_file():
        raise BenchError(f"no evaluation set at {path}: run python -m bench.impact.eval_set")
    data = json.loads(path.read_text(encoding="utf-8"))
    return [DrawnPair(**item) for item in data["pairs"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.impact.eval_set", description=__doc__)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--output", type=Path, default=MANIFEST)
    parser.add_argument("--python-count", type=int, default=PYTHON_COUNT, help="beside the stratum")
    parser.add_argument("--npm-count", type=int, default=TYPESCRIPT_COUNT)
    parser.add_argument(
        "--extra-npm-tuning",
        type=int,
        metavar="N",
        help="keep the committed set and add N npm pairs to the tuning half "
        f"(seed + {EXTRA_SEED_OFFSET}, packages not in the set yet)",
    )
    parser.add_argument(
        "--extra-python-tuning",
        type=int,
        metavar="N",
        help="keep the committed set and add to the tuning half one PyPI pair of a package of "
        f">= {LARGE_MODULES} modules and N other PyPI pairs (seed + {EXTRA_SEED_OFFSET}, "
        "packages not in the set yet)",
    )
    parser.add_argument(
        "--mid-python-tuning",
        type=int,
        metavar="N",
        help=f"keep the committed set and add N PyPI pairs of packages of >= {MID_MODULES} "
        f"modules to the tuning half (seed + {MID_SEED_OFFSET}, packages not in the set yet)",
    )
    parser.add_argument(
        "--layout-npm-tuning",
        type=int,
        metavar="N",
        help="keep the committed set and add N npm pairs to the tuning half whose newer "
        "release has an exports map with types conditions or subpaths, .d.mts/.d.cts files, "
        f"re-export chains or a bundled declaration file (seed + {LAYOUT_SEED_OFFSET})",
    )
    parser.add_argument(
        "--entry-npm-tuning",
        type=int,
        metavar="N",
        help="keep the committed set and add N npm pairs to the tuning half whose newer "
        "release's typings entry is export = (of an imported module or any), a UMD global "
        f"(export as namespace), or a tree of >= {MANY_DECLARATIONS} declaration files "
        f"(seed + {ENTRY_SEED_OFFSET})",
    )
    parser.add_argument(
        "--only-python",
        action="store_true",
        help="redraw the PyPI pairs, keep the npm pairs of the committed set",
    )
    args = parser.parse_args(argv)
    work = WorkDir(args.work_dir.resolve())
    if args.extra_npm_tuning:
        return _extend(work, args.output, args.seed, args.extra_npm_tuning)
    if args.extra_python_tuning:
        return _extend_python(work, args.output, args.seed, args.extra_python_tuning)
    if args.mid_python_tuning:
        return _extend_mid(work, args.output, args.seed, args.mid_python_tuning)
    if args.layout_npm_tuning:
        return _extend(work, args.output, args.seed, args.layout_npm_tuning, kind="layout")
    if args.entry_npm_tuning:
        return _extend(work, args.output, args.seed, args.entry_npm_tuning, kind="entry")
    npm_drawn = None
    if args.only_python:
        npm_drawn = [p for p in load_set(args.output) if p.ecosystem == "npm"]
        args.npm_count = len(npm_drawn)
    try:
        drawn = draw(work, args.seed, args.python_count, args.npm_count, npm_drawn)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    document = {
        "seed": args.seed,
        "counts": {"large": LARGE_COUNT, "python": args.python_count, "npm": args.npm_count},
        "rules": {
            "python": f"minor lines, pure-Python wheel (else sdist), >= 1 corrected-griffe break; "
            f"{LARGE_COUNT} pairs of >= {LARGE_MODULES} modules first (seed + 1)",
            "npm": "major lines, .d.ts in both releases, >= 1 TypeScript-compiler break",
        },
        "pairs": [asdict(p) for p in drawn],
    }
    args.output.write_text(
        json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    for ecosystem in ("pypi", "npm"):
        pairs = [p for p in drawn if p.ecosystem == ecosystem]
        halves = by_half([ReleasePair("pypi", p.package, p.base, p.head, p.half) for p in pairs])  # type: ignore[arg-type]
        for half, members in halves.items():
            print(f"{ecosystem} {half} ({len(members)}): " + ", ".join(m.label for m in members))
    return 0


def _extend(work: WorkDir, output: Path, seed: int, count: int, kind: str = "extra") -> int:
    """Append an extra npm tuning draw to the committed set (earlier pairs of the same
    stratum are replaced; the other extra strata's are kept and not drawn again)."""
    document = json.loads(output.read_text(encoding="utf-8"))
    stratum = _STRATA[kind]
    kept = [DrawnPair(**item) for item in document["pairs"] if item["stratum"] != stratum]
    try:
        extra = extra_tuning(work, kept, seed, count, kind=kind)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    document["counts"][stratum] = count
    if kind == "entry":
        document["rules"][stratum] = (
            f"the npm rule, seed + {ENTRY_SEED_OFFSET}, packages not drawn before, tuning half "
            "only, the newer release's typings entry export = (of an imported module or any), "
            f"export as namespace, or >= {MANY_DECLARATIONS} declaration files"
        )
    elif kind == "layout":
        document["rules"][stratum] = (
            f"the npm rule, seed + {LAYOUT_SEED_OFFSET}, packages not drawn before, tuning half "
            "only, the newer release's typings with an exports map (types condition or "
            "subpaths), .d.mts/.d.cts, re-export chains or a bundled declaration file"
        )
    else:
        document["rules"][stratum] = (
            f"the npm rule, seed + {EXTRA_SEED_OFFSET}, packages not drawn before, tuning half only"
        )
    document["pairs"] = [asdict(p) for p in [*kept, *extra]]
    output.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        "npm extra tuning ("
        + str(len(extra))
        + "): "
        + ", ".join(f"{p.package} {p.base}→{p.head}" for p in extra)
    )
    return 0


_PYTHON_EXTRA = ("python-extra-large", "python-extra")


def _extend_python(work: WorkDir, output: Path, seed: int, count: int) -> int:
    """Append an extra PyPI tuning draw to the committed set (earlier ones are replaced)."""
    document = json.loads(output.read_text(encoding="utf-8"))
    kept = [DrawnPair(**item) for item in document["pairs"] if item["stratum"] not in _PYTHON_EXTRA]
    try:
        extra = extra_python_tuning(work, kept, seed, count)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    large = sum(1 for p in extra if p.stratum == "python-extra-large")
    document["counts"]["python-extra"] = count
    document["counts"]["python-extra-large"] = 1
    document["rules"]["python-extra"] = (
        f"the python rule, {LARGE_MODULES}-module stratum first (seed + {EXTRA_SEED_OFFSET} + 1; "
        f"{large} of 1 drawn: no untaken package of the list passed its tests), then seed + "
        f"{EXTRA_SEED_OFFSET}; packages not drawn before, tuning half only"
        if not large
        else f"the python rule, {LARGE_MODULES}-module stratum first (seed + "
        f"{EXTRA_SEED_OFFSET} + 1), then seed + {EXTRA_SEED_OFFSET}; packages not drawn "
        "before, tuning half only"
    )
    return _write_extended(document, kept, extra, output, "python extra tuning")


def _extend_mid(work: WorkDir, output: Path, seed: int, count: int) -> int:
    """Append the mid-size PyPI tuning draw to the committed set (an earlier one is replaced)."""
    document = json.loads(output.read_text(encoding="utf-8"))
    kept = [DrawnPair(**item) for item in document["pairs"] if item["stratum"] != "python-mid"]
    try:
        extra = mid_python_tuning(work, kept, seed, count)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    document["counts"]["python-mid"] = count
    document["rules"]["python-mid"] = (
        f"the python rule, packages of >= {MID_MODULES} modules (sdist >= "
        f"{MID_SDIST_BYTES // 1000} kB on the registry's list first), seed + {MID_SEED_OFFSET}; "
        "packages not drawn before, tuning half only"
    )
    return _write_extended(document, kept, extra, output, "python mid-size tuning")


def _write_extended(
    document: dict[str, Any],
    kept: list[DrawnPair],
    extra: list[DrawnPair],
    output: Path,
    label: str,
) -> int:
    """Write the set with ``extra`` after ``kept`` and say what was added."""
    document["pairs"] = [asdict(p) for p in [*kept, *extra]]
    output.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{label} ({len(extra)}): "
        + ", ".join(f"{p.package} {p.base}→{p.head} ({p.modules} modules)" for p in extra)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
