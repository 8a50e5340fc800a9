"""``python -m bench.tokens [--work-dir DIR]``: prompt tokens of a 6-turn impact agent run.

Builds the 20-file httpx pull request, runs the real ``prflow impact`` with the
scripted model of :mod:`bench.tokens.conversation` and records every request at
the scripted Messages API server (cache writes from 1,024 tokens). Then the
same conversation is rebuilt as release 0.1 built its requests and replayed to
a fresh server (both request lists are kept as ``requests-*.json`` in
``bench/.work/state/tokens``). Prints per-turn prompt tokens for both, the cache-read share
after turn 1, the totals, and last the ratio of the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.layout import DEFAULT_ROOT, WorkDir, fresh_dir
from bench.impact.prflow_cli import PrflowCli
from bench.tokens.conversation import check_evidence, turns
from bench.tokens.pr_slice import LABEL, slice_repo
from bench.tokens.previous_release import first_message, rebuild_requests, replay
from bench.tokens.prflow_run import record_impact_run
from bench.tokens.report import print_report
from bench.tokens.usage import RunTokens, first_prompt_parts
from tests.support.scripted_anthropic import ScriptedAnthropic

MIN_CACHEABLE_TOKENS = 1_024


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run(work: WorkDir) -> None:
    _progress(f"building {LABEL}")
    repo = slice_repo(work)
    check_evidence(repo)
    cli = PrflowCli(fresh_dir(work.root / "state" / "tokens"))
    # The anchor runs the repository tools in this process: same private state as the CLI.
    os.environ.update({k: v for k, v in cli.env().items() if k.startswith("PRFLOW_")})
    script = turns()
    _progress("prflow impact with the scripted model")
    with ScriptedAnthropic(script, min_cacheable_tokens=MIN_CACHEABLE_TOKENS) as server:
        recorded, report = record_impact_run(cli, repo, server, len(script))
    _progress("replaying the conversation as release 0.1 built its requests")
    anchor = replay(rebuild_requests(recorded, report, repo), script, MIN_CACHEABLE_TOKENS)
    for name, requests in (("prflow", recorded), ("anchor", anchor)):
        bodies = [request.body for request in requests]
        (cli.state / f"requests-{name}.json").write_text(json.dumps(bodies, indent=1), "utf-8")
    print_report(
        script,
        RunTokens.of(recorded),
        RunTokens.of(anchor),
        first_message_chars=(
            len(recorded[0].body["messages"][0]["content"][0]["text"]),
            len(first_message(report)),
        ),
        first_prompt=first_prompt_parts(recorded[0].body),
        totals=report["totals"],
        min_tokens=MIN_CACHEABLE_TOKENS,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_ROOT, help="default bench/.work")
    args = parser.parse_args()
    try:
        run(WorkDir(args.work_dir.resolve()))
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
