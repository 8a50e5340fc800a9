"""Hostile tests end their own run with a clear outcome; the worker and other runs go on."""

from __future__ import annotations

import os
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from activities.test_runs import outcomes_of, run_tests
from activities.workspace import open_workspace
from prflow.config import cached_settings
from prflow.store.blobs import get_text
from prflow.test_runs.models import Outcome, TestRunInput
from prflow.workspace.models import WorkspaceOpenInput, WorkspaceRef
from tests.support.sample_repos import commit_all, init_repo, write_files

MARK = f"hostile{uuid.uuid4().hex[:12]}"
HOSTILE = f"""
import os
import time


def test_fine_{MARK}():
    assert sum([1, 2]) == 3


def test_fork_bomb_{MARK}():
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)


def test_allocate_50_gb_{MARK}():
    data = bytearray(50 * 2**30)
    data[-1] = 1


def test_ten_gb_to_stdout_{MARK}(capfd):
    chunk = b"x" * (1 << 20)
    with capfd.disabled():
        for _ in range(10 * 1024):
            os.write(1, chunk)


def test_sleeps_forever_{MARK}():
    time.sleep(10**6)
"""


def db() -> str:
    return cached_settings().resolved_database_url()


def left_behind() -> list[int]:
    """Processes of these hostile tests still alive anywhere on the machine."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if MARK.encode() in cmdline:
            found.append(int(pid))
    return found


@pytest.fixture
def hostile(tmp_path: Path, prflow_home: Path) -> WorkspaceRef:
    repo = init_repo(tmp_path / "hostile")
    write_files(repo, {"requirements.txt": "pytest\n", "tests/test_hostile.py": HOSTILE})
    commit_all(repo, "hostile tests")
    ref = open_workspace(WorkspaceOpenInput(repo=str(repo), run_id="hostile"))
    warm = run_tests(TestRunInput(workspace=ref, selection=[select("fine")]))
    assert (warm.counts.passed, warm.counts.failed) == (1, 0), "the environment is built"
    return ref


def select(name: str) -> str:
    return f"tests/test_hostile.py::test_{name}_{MARK}"


def test_a_fork_bomb_ends_at_the_time_cap_while_another_run_goes_on(hostile: WorkspaceRef) -> None:
    with ThreadPoolExecutor(2) as pool:
        bomb = pool.submit(
            run_tests,
            TestRunInput(workspace=hostile, selection=[select("fork_bomb")], timeout_seconds=8),
        )
        time.sleep(3)  # the bomb is at its process limit by now
        other = run_tests(TestRunInput(workspace=hostile, selection=[select("fine")]))
        bombed = bomb.result()
    assert (other.counts.passed, other.counts.failed) == (1, 0), get_text(db(), other.output_key)
    assert bombed.timed_out and bombed.exit_code is None
    assert "ran past the 8s cap and were killed" in get_text(db(), bombed.output_key)
    assert left_behind() == []


def test_a_50_gb_allocation_fails_the_test_not_the_worker(hostile: WorkspaceRef) -> None:
    started = time.monotonic()
    run = run_tests(TestRunInput(workspace=hostile, selection=[select("allocate_50_gb")]))
    assert time.monotonic() - started < 60
    assert run.outcomes_key is not None and run.exit_code == 1
    [outcome] = outcomes_of(db(), run.outcomes_key)
    assert outcome.outcome == Outcome.failed and "MemoryError" in outcome.message


def test_ten_gb_of_output_stops_the_run_at_the_output_bound(hostile: WorkspaceRef) -> None:
    limits = cached_settings().sandbox.limits
    run = run_tests(TestRunInput(workspace=hostile, selection=[select("ten_gb_to_stdout")]))
    assert run.limit_hit == "output" and run.exit_code is None and not run.timed_out
    text = get_text(db(), run.output_key)
    assert f"wrote more than {limits.max_output_mb} MiB of output and were stopped" in text
    assert "bytes of output left out here" in text
    assert len(text.encode()) < limits.output_mb * 2**20 + 4096
    assert left_behind() == []


def test_a_test_that_sleeps_forever_is_killed_at_the_cap(hostile: WorkspaceRef) -> None:
    started = time.monotonic()
    run = run_tests(
        TestRunInput(workspace=hostile, selection=[select("sleeps_forever")], timeout_seconds=3)
    )
    assert time.monotonic() - started < 30
    assert run.timed_out and run.exit_code is None
    assert left_behind() == []
