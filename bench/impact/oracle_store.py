"""Each pair's oracle, computed once and stored as JSON in ``oracles/`` (committed).

Python: griffe's corrected check (:mod:`bench.impact.python_oracle`). TypeScript:
the compiler through ``ts_oracle.cjs``. Both the accuracy bench and the evaluation
set's eligibility test read them from here, so a pair's oracle is computed once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.impact.__main__ import prepare_repo
from bench.impact.errors import BenchError
from bench.impact.layout import WorkDir
from bench.impact.pairs import PythonPair, TypeScriptPair
from bench.impact.python_oracle import OracleObject, load_oracle, run_oracle, save_oracle
from bench.impact.snapshots import snapshot_pair

ORACLES = Path(__file__).resolve().parent / "oracles"
TS_ORACLE = Path(__file__).resolve().parent / "ts_oracle.cjs"
TYPESCRIPT_VERSION = "5.6.3"
TS_ORACLE_TIMEOUT_SECONDS = 600.0
_TS_KEYS = (
    "removed",
    "broken",
    "old_exports",
    "reasons",
    "changed_only_through_other_exports",
    "overloaded",
    "reexported",
)


def python_oracle(pair: PythonPair, work: WorkDir) -> tuple[OracleObject, ...]:
    """The stored oracle of a Python pair, computed (and stored) when missing."""
    oracle_file = ORACLES / f"{pair.slug}.json"
    if not oracle_file.is_file():
        repo = prepare_repo(pair, work)
        base, head = snapshot_pair(repo, work.anchor(pair))
        search = pair.search_path.strip("./")
        prefix = f"{search}/" if search else ""
        run = run_oracle(base / search, head / search, pair.import_package, prefix)
        save_oracle(oracle_file, run, {"pair": pair.label, "package": pair.import_package})
    return load_oracle(oracle_file)


def typescript_module(work: WorkDir) -> Path:
    """The bench's own TypeScript (``npm install typescript@5.6.3`` into ``bench/.work``)."""
    module = work.tools / "ts" / "node_modules" / "typescript"
    if not (module / "package.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise BenchError("npm is needed to install the TypeScript compiler for the oracle")
        (work.tools / "ts").mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--silent", "--no-audit", "--no-fund"]
        subprocess.run(
            [*command, f"typescript@{TYPESCRIPT_VERSION}"],
            cwd=work.tools / "ts",
            check=True,
            capture_output=True,
        )
    return module


def run_ts_oracle(
    pair: TypeScriptPair, work: WorkDir, base: Path, head: Path
) -> tuple[dict[str, Any], float]:
    """The compiler's verdicts on the pair's main entry, and the seconds it took."""
    check = work.anchor(pair) / "check"
    (check / "node_modules").mkdir(parents=True, exist_ok=True)
    for name, target in (("old-pkg", base), ("new-pkg", head)):
        link = check / "node_modules" / name
        if not link.exists():
            link.symlink_to(target.resolve())
    start = time.perf_counter()
    try:
        done = subprocess.run(
            ["node", str(TS_ORACLE), str(typescript_module(work)), str(check)],
            capture_output=True,
            text=True,
            check=False,
            timeout=TS_ORACLE_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"TypeScript oracle timed out on {pair.label}") from exc
    if done.returncode != 0:
        raise BenchError(f"TypeScript oracle failed on {pair.label}: {done.stderr.strip()[-300:]}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data, time.perf_counter() - start


def typescript_oracle(
    pair: TypeScriptPair, work: WorkDir, *, anchor: bool
) -> tuple[dict[str, Any], float]:
    """The stored oracle of an npm pair (computed when missing), and the compiler's time when
    ``anchor`` asks for it or the oracle had to be computed (else 0)."""
    oracle_file = ORACLES / f"{pair.slug}.json"
    seconds = 0.0
    if anchor or not oracle_file.is_file():
        repo = prepare_repo(pair, work)
        base, head = snapshot_pair(repo, work.anchor(pair))
        data, seconds = run_ts_oracle(pair, work, base, head)
        if not oracle_file.is_file():
            stored = {k: data[k] for k in _TS_KEYS}
            tool = f"typescript {TYPESCRIPT_VERSION} (bench/impact/ts_oracle.cjs)"
            stored.update(pair=pair.label, tool=tool)
            oracle_file.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(stored, indent=1, sort_keys=True) + "\n"
            oracle_file.write_text(text, encoding="utf-8")
    stored_data: dict[str, Any] = json.loads(oracle_file.read_text(encoding="utf-8"))
    return stored_data, seconds
