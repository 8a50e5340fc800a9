"""``python -m bench.review [--runs N]``: a review of a real ~30-file PR, measured.

The PR is the change between two releases of ``requests`` (2.31.0 → 2.32.0:
38 files, the package moved under ``src/``, new adapter hooks, tests). The
bench runs the real console script on an embedded Temporal, and prints:

1. wall time of the static phases (``prflow review --no-llm``: resolve,
   anatomy, static findings, synthesis, rendering), N runs, beside the same
   PR through ``prflow impact --no-llm``;
2. one review with a representative scripted conversation per agent, served
   by the scripted Messages API (which applies Anthropic's prompt-cache rules:
   breakpoints, the 20-block lookback, a 1,024-token minimum): input tokens per
   phase as the ledger recorded them (``prflow costs --json``), and the share
   read from the cache;
3. last, tokens per PR: the review's against the same PR through ``prflow
   impact`` with its agent (the anchor), and their ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.impact.errors import BenchError
from bench.impact.fetch import python_sdist
from bench.impact.layout import DEFAULT_ROOT, fresh_dir
from bench.impact.measure import Timing, repeat, run_checked, timed
from bench.impact.prflow_cli import PrflowCli
from bench.impact.repos import BASE_REF, HEAD_REF, every_file, git, release_pair_repo
from bench.review.conversation import impact_conversation, review_conversation
from prflow.review.run_models import MODEL_PHASES
from tests.support.scripted_anthropic import ScriptedAnthropic

PACKAGE, BASE_VERSION, HEAD_VERSION = "requests", "2.31.0", "2.32.0"
MIN_CACHEABLE_TOKENS = 1024
BUDGET_USD = "20"


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _repo(root: Path) -> Path:
    downloads = root / "downloads"
    base = python_sdist(downloads, PACKAGE, BASE_VERSION)
    head = python_sdist(downloads, PACKAGE, HEAD_VERSION)
    label = f"{PACKAGE} {BASE_VERSION}→{HEAD_VERSION}"
    return release_pair_repo(root / "repos" / f"review-{PACKAGE}", base, head, every_file, label)


def _range_args(repo: Path) -> list[str]:
    return ["--repo", str(repo), "--base", BASE_REF, "--head", HEAD_REF, "--quiet"]


def _static(cli: PrflowCli, command: str, repo: Path, out: Path) -> str:
    """One static-mode run; what it found (the same every run)."""
    args = [str(cli.binary), command, *_range_args(repo), "--no-llm", "--format", "json"]
    run_checked([*args, "--output", str(out)], cwd=cli.state, env=cli.env(), ok_codes=(0, 1))
    report = json.loads(out.read_text())
    if command == "review":
        return f"{len(report['findings'])} findings, event {report['event']}"
    return f"{len(report['breaking_changes'])} breaking changes, risk {report['risk']['score']}"


def _with_model(
    cli: PrflowCli, server: ScriptedAnthropic, command: list[str], out: Path
) -> dict[str, Any]:
    """Run ``command`` against the scripted model; the ledger's figures of the run."""
    env = cli.env() | {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "bench-key"}
    run_checked([*command, "--output", str(out)], cwd=cli.state, env=env, ok_codes=(0, 1))
    costs = run_checked([str(cli.binary), "costs", "--json"], cwd=cli.state, env=env)
    figures: dict[str, Any] = json.loads(costs.stdout)
    return figures


def _prompt_tokens(row: dict[str, Any]) -> int:
    return int(row["input_tokens"]) + int(row["cache_write_tokens"]) + int(row["cache_read_tokens"])


def _share(row: dict[str, Any]) -> float:
    total = _prompt_tokens(row)
    return int(row["cache_read_tokens"]) / total if total else 0.0


def _phase_table(costs: dict[str, Any], requests: int) -> list[str]:
    rows = {r["phase"]: r for r in costs["by_phase"] if r["workflow_kind"] == "review"}
    lines = [
        f"{'phase':<18}{'calls':>6}{'input tokens':>14}{'cache read':>12}{'output':>9}",
    ]
    for phase in MODEL_PHASES:
        row = rows.get(phase)
        if row is None:
            continue
        lines.append(
            f"{phase:<18}{row['attempts']:>6}{_prompt_tokens(row):>14,}"
            f"{_share(row):>11.0%} {int(row['output_tokens']):>8,}"
        )
    totals = costs["totals"]
    lines.append(
        f"{'review total':<18}{totals['attempts']:>6}{_prompt_tokens(totals):>14,}"
        f"{_share(totals):>11.0%} {int(totals['output_tokens']):>8,}"
    )
    lines.append(f"(requests served by the scripted Messages API: {requests})")
    return lines


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.review", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="static runs per command")
    parser.add_argument("--work", type=Path, default=DEFAULT_ROOT, help="work directory")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        return _run(args.runs, args.work)
    except BenchError as err:
        print(f"bench: error: {err}", file=sys.stderr)
        return 2


def _run(runs: int, root: Path) -> int:
    _progress(f"fetching {PACKAGE} {BASE_VERSION} and {HEAD_VERSION}")
    repo = _repo(root)
    files = len(git(repo, "diff", "--name-only", "-M", BASE_REF, HEAD_REF).splitlines())
    reports = fresh_dir(root / "reports" / "review")
    static_cli = PrflowCli(fresh_dir(root / "state" / "review-static"))
    _progress("static review x1 on fresh state, then timed runs")
    _static(static_cli, "review", repo, reports / "static-review.json")
    review_time, review_found = repeat(
        lambda: _static(static_cli, "review", repo, reports / "static-review.json"), runs, "review"
    )
    impact_time, impact_found = repeat(
        lambda: _static(static_cli, "impact", repo, reports / "static-impact.json"), runs, "impact"
    )

    _progress("review with a scripted conversation per agent")
    with ScriptedAnthropic(min_cacheable_tokens=MIN_CACHEABLE_TOKENS) as server:
        server.route(review_conversation(repo))
        review_cli = PrflowCli(fresh_dir(root / "state" / "review-model"))
        command = [str(review_cli.binary), "review", *_range_args(repo), "--format", "json"]
        seconds, review_costs = timed(
            lambda: _with_model(
                review_cli,
                server,
                [*command, "--depth", "standard", "--budget-usd", BUDGET_USD],
                reports / "review.json",
            )
        )
        review_requests = len(server.requests)
        _progress("impact with its agent on the same PR (the anchor)")
        server.route({})
        server.script(impact_conversation(repo))
        impact_cli = PrflowCli(fresh_dir(root / "state" / "impact-model"))
        impact_costs = _with_model(
            impact_cli,
            server,
            [str(impact_cli.binary), "impact", *_range_args(repo), "--format", "json",
             "--budget-usd", BUDGET_USD],
            reports / "impact.json",
        )  # fmt: skip
    review = json.loads((reports / "review.json").read_text())
    _print(files, review_time, review_found, impact_time, impact_found, seconds, review)
    print("\n".join(_phase_table(review_costs, review_requests)))
    review_tokens = _prompt_tokens(review_costs["totals"]) + review_costs["totals"]["output_tokens"]
    impact_tokens = _prompt_tokens(impact_costs["totals"]) + impact_costs["totals"]["output_tokens"]
    print(
        f"tokens per PR ({files} files): review {review_tokens:,} "
        f"({_share(review_costs['totals']):.0%} read from cache) vs prflow impact "
        f"{impact_tokens:,} ({_share(impact_costs['totals']):.0%}): "
        f"{review_tokens / impact_tokens:.1f}x"
    )
    return 0


def _print(
    files: int,
    review_time: Timing,
    review_found: str,
    impact_time: Timing,
    impact_found: str,
    model_seconds: float,
    review: dict[str, Any],
) -> None:
    print(f"{PACKAGE} {BASE_VERSION}→{HEAD_VERSION}: {files} changed files")
    print(
        f"static phases, prflow review --no-llm: median {review_time.median:.2f}s of "
        f"{review_time.runs} ({review_found})"
    )
    print(
        f"static phases, prflow impact --no-llm: median {impact_time.median:.2f}s of "
        f"{impact_time.runs} ({impact_found}); review/impact "
        f"{review_time.median / impact_time.median:.2f}x"
    )
    dims = len(review["plan"]["dimensions"]) if review.get("plan") else 0
    print(
        f"review with the scripted model: {model_seconds:.1f}s wall, {dims} dimensions, "
        f"{len(review['findings'])} findings, event {review['event']}, "
        f"complete {review['complete']}"
    )


if __name__ == "__main__":
    sys.exit(main())
