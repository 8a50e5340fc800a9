"""One anchor per language, measured the same way as prflow: whole processes, median of N."""

from __future__ import annotations

from dataclasses import dataclass

from bench.impact.api_extractor_anchor import api_extractor_diff, install_api_extractor
from bench.impact.griffe_anchor import griffe_check
from bench.impact.layout import WorkDir
from bench.impact.measure import Timing, repeat
from bench.impact.pairs import Pair, PythonPair, TypeScriptPair
from bench.impact.prflow_cli import ImpactFigures


@dataclass(frozen=True)
class AnchorResult:
    """``short`` names the anchor in the ratio line; ``notes`` say what it does and found."""

    name: str
    short: str
    timing: Timing
    findings: str
    notes: tuple[str, ...]


def run_anchor(pair: Pair, work: WorkDir, runs: int, prflow: ImpactFigures) -> AnchorResult:
    if isinstance(pair, PythonPair):
        return _griffe(pair, work, runs, prflow)
    if isinstance(pair, TypeScriptPair):
        return _api_extractor(pair, work, runs, prflow)
    raise TypeError(f"no anchor for {type(pair).__name__}")


def _griffe(pair: PythonPair, work: WorkDir, runs: int, prflow: ImpactFigures) -> AnchorResult:
    repo = work.repo(pair)
    timing, found = repeat(
        lambda: griffe_check(repo, pair.import_package, pair.search_path), runs, "griffe check"
    )
    both = found.symbols & prflow.breaking_symbols
    return AnchorResult(
        name="griffe check",
        short="griffe",
        timing=timing,
        findings=f"{found.breakages} breakages in {len(found.symbols)} API objects",
        notes=(
            "anchor: `griffe check` compares the public API of both refs (one part of "
            "prflow's job: breaking changes only; no tests, docs, graph, config or risk).",
            f"API objects flagged by both: {len(both)} "
            f"(prflow {len(prflow.breaking_symbols)}, griffe {len(found.symbols)}).",
        ),
    )


def _api_extractor(
    pair: TypeScriptPair, work: WorkDir, runs: int, prflow: ImpactFigures
) -> AnchorResult:
    script = install_api_extractor(work.tools)
    repo, scratch = work.repo(pair), work.anchor(pair)
    timing, diff = repeat(
        lambda: api_extractor_diff(script, repo, pair.entry_point, scratch), runs, "API Extractor"
    )
    ours = {symbol.split(".")[0] for _, symbol in prflow.breaking_symbols}
    both = ours & diff.changed_or_removed
    return AnchorResult(
        name="API Extractor, base+head",
        short="api-extractor",
        timing=timing,
        findings=(
            f"{len(diff.changed_or_removed)} of {diff.base_declarations} public "
            "declarations changed or removed (any text change)"
        ),
        notes=(
            f"anchor: API Extractor reports the public API of {pair.entry_point} at both "
            "refs, compared per declaration (one part of prflow's job, entry point only; "
            "prflow compares the package's exports from every entry point and adds tests, docs, "
            "graph and risk).",
            f"exported names flagged by both: {len(both)} (prflow {len(ours)} names, "
            f"API Extractor {len(diff.changed_or_removed)}).",
        ),
    )
