"""``prflow review stats`` as a user runs it: the installed CLI against the store."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from prflow.store.finding_verdicts import record_verdict
from prflow.store.review_marks import record_review
from tests.support.fixtures_temporal import prflow_script


def _run(*args: str, db: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRFLOW_DATABASE_URL": db}
    return subprocess.run(
        [str(prflow_script()), "review", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
    )


def test_stats_show_each_outcome_per_repository_and_dimension(sqlite_url: str) -> None:
    record_review(sqlite_url, "acme/api", 3, "a" * 40, ["f1", "f2", "f3"], "review:3")
    record_verdict(sqlite_url, "acme/api", 3, "f1", "rebutted", dimension="Auth")
    record_verdict(sqlite_url, "acme/api", 3, "f2", "fixed", dimension="Auth")
    shown = _run("stats", "--format", "json", db=sqlite_url)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    auth = next(r for r in rows if r["dimension"] == "Auth")
    assert (auth["rebutted"], auth["fixed"], auth["accepted"]) == (1, 1, 0)
    assert sum(r["open"] for r in rows) == 1
    table = _run("stats", "--repo", "acme/api", db=sqlite_url)
    assert table.returncode == 0 and "Auth" in table.stdout and "Rebutted" in table.stdout


def test_a_wrong_word_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = _run("statz", db=f"sqlite:///{tmp_path / 'x.db'}")
    assert done.returncode == 2
    assert "prflow review stats" in done.stderr and "Traceback" not in done.stderr
