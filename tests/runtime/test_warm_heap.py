"""The warm worker freezes its start-up heap once it is ready for a first run.

Checked in a fresh interpreter: freezing is process-wide, and the test process's own
heap must not be what is measured (or changed).
"""

from __future__ import annotations

import json
import subprocess
import sys

_PREPARE = """
import gc, json, weakref
import prflow.analysis.parse_cache as parse_cache
import worker.warm

parse_cache.start_parse_workers = lambda *args: None  # no fork servers in this check
worker.warm.start_command_forks = lambda: None


class Node:
    pass


garbage = Node()
garbage.itself = garbage  # a cycle: only the collector can free it
gone = weakref.ref(garbage)
del garbage
before = gc.get_freeze_count()
worker.warm._prepare_first_run()
print(json.dumps({"before": before, "after": gc.get_freeze_count(), "cycle_freed": gone() is None}))
"""


def test_the_warm_worker_freezes_what_survives_start_up_after_collecting() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PREPARE], capture_output=True, text=True, check=True, timeout=120
    )
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["before"] == 0
    assert facts["after"] > 10_000  # the imported modules, classes and schemas
    assert facts["cycle_freed"]  # collected first: garbage is not frozen
