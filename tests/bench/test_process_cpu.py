"""The small-pair bench's worker CPU: a process tree's CPU, children and reaped ones included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.impact.process_cpu import tree_cpu_seconds, warm_worker_pid
from worker.warm import STATE_FILE

BURN_IN_A_CHILD = """
import subprocess, sys
subprocess.run([sys.executable, "-c", "x = 0\\nfor i in range(3_000_000): x += i"], check=True)
print("done", flush=True)
sys.stdin.read()  # stay alive, so the reaped child's CPU is read from this process
"""


def test_a_finished_child_counts_in_its_parents_tree() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", BURN_IN_A_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "done"
        # the loop's CPU, reaped by the parent (an interpreter alone spends about 0.02 s)
        assert tree_cpu_seconds(parent.pid) >= 0.05
    finally:
        parent.kill()
        parent.wait()


def test_the_warm_worker_is_found_by_the_state_it_writes(tmp_path: Path) -> None:
    assert warm_worker_pid(tmp_path) is None
    (tmp_path / STATE_FILE).write_text(json.dumps({"pid": 4242}), encoding="utf-8")
    assert warm_worker_pid(tmp_path) == 4242
