"""Parse workers forked from a server started ahead of time (the warm worker does this while a
command connects): files are parsed in other processes, with the same answers as inline."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from prflow.analysis.parse_cache import (
    PARSER_MODULES,
    InputLimits,
    MemoryParseCache,
    ParsedFiles,
    ParserSpec,
    TimedOut,
    start_parse_workers,
)
from prflow.analysis.py_summary import summary_parser
from prflow.source_tree import MemoryTree

FILES = {
    f"pkg/mod{n}.py": f"from pkg import mod{n - 1}\n\n\ndef f{n}(a, b={n}):\n    return a\n"
    for n in range(1, 8)
}


def _pid_parser(text: str, path: str) -> bytes:
    """Which process parsed the file."""
    return str(os.getpid()).encode()


def test_every_preloaded_parser_module_imports() -> None:
    # The fork server ignores a module it cannot import: a renamed module would go unnoticed.
    for name in PARSER_MODULES:
        assert importlib.import_module(name).__name__ == name


def test_files_are_parsed_in_worker_processes_of_the_started_server() -> None:
    start_parse_workers()
    tree = MemoryTree(FILES)
    parsed = ParsedFiles(
        ParserSpec("pid", "1", _pid_parser),
        MemoryParseCache(),
        InputLimits(parallel_from=2, parallel_from_when_ready=2),
    )
    pids = {int(data) for data in parsed.get_many(tree, sorted(FILES)).values()}
    assert pids and os.getpid() not in pids
    assert parsed.skipped == {}


def test_summaries_from_the_workers_equal_summaries_parsed_inline() -> None:
    start_parse_workers()
    tree = MemoryTree(FILES)
    in_workers = ParsedFiles(
        summary_parser(),
        MemoryParseCache(),
        InputLimits(parallel_from=2, parallel_from_when_ready=2),
    )
    inline = ParsedFiles(
        summary_parser(),
        MemoryParseCache(),
        InputLimits(parallel_from=10**6, parallel_from_when_ready=10**6),
    )
    found = in_workers.get_many(tree, sorted(FILES))
    assert len(found) == len(FILES)
    assert found == inline.get_many(tree, sorted(FILES))


def test_once_the_server_is_up_sixteen_files_go_to_the_workers_by_default() -> None:
    start_parse_workers()
    tree = MemoryTree({f"pkg/m{i}.py": f"X{i} = {i}\n" for i in range(16)})
    parsed = ParsedFiles(ParserSpec("pid", "1", _pid_parser), MemoryParseCache())
    pids = {int(data) for data in parsed.get_many(tree, sorted(tree.paths())).values()}
    assert pids and os.getpid() not in pids


def _counting_parser() -> tuple[ParserSpec, list[str]]:
    seen: list[str] = []

    def parse(text: str, path: str) -> bytes:
        seen.append(path)
        return f"{path}:{text}".encode()

    return ParserSpec("echo", "1", parse), seen


def test_two_trees_parsed_as_one_batch_keep_each_sides_own_content() -> None:
    # A release pair's base and head have the same paths with other contents: one batch
    # must parse both versions (not take the first for both) and each content once.
    base = MemoryTree({"pkg/a.py": "A = 1\n", "pkg/same.py": "S = 0\n"})
    head = MemoryTree({"pkg/a.py": "A = 2\n", "pkg/same.py": "S = 0\n", "pkg/new.py": "N\n"})
    spec, seen = _counting_parser()
    cache = MemoryParseCache()
    parsed = ParsedFiles(spec, cache)
    parsed.prefetch([(base, sorted(base.paths())), (head, sorted(head.paths()))])
    assert sorted(seen) == ["pkg/a.py", "pkg/a.py", "pkg/new.py", "pkg/same.py"]
    assert parsed.get(base, "pkg/a.py") == b"pkg/a.py:A = 1\n"
    assert parsed.get(head, "pkg/a.py") == b"pkg/a.py:A = 2\n"
    assert parsed.get(head, "pkg/same.py") == b"pkg/same.py:S = 0\n"
    assert len(seen) == 4  # the lookups after the batch parse nothing again
    # a later reader of the same cache (the graph build) parses nothing either
    again = ParsedFiles(spec, cache)
    assert again.get_many(head, sorted(head.paths()))["pkg/a.py"] == b"pkg/a.py:A = 2\n"
    assert len(seen) == 4


def test_two_trees_in_workers_give_what_each_tree_parsed_alone_gives() -> None:
    start_parse_workers()
    base = MemoryTree(FILES)
    head = MemoryTree({**FILES, "pkg/mod3.py": "def f3(a):\n    return a\n"})
    limits = InputLimits(parallel_from=2, parallel_from_when_ready=2)
    together = ParsedFiles(summary_parser(), MemoryParseCache(), limits)
    together.prefetch([(base, sorted(FILES)), (head, sorted(FILES))])
    for tree in (base, head):
        alone = ParsedFiles(summary_parser(), MemoryParseCache(), limits)
        assert together.get_many(tree, sorted(FILES)) == alone.get_many(tree, sorted(FILES))
    assert together.get(base, "pkg/mod3.py") != together.get(head, "pkg/mod3.py")


def _slow_start_parser() -> ParserSpec:
    # by name, so this process never imports it (and never sleeps): only the workers do
    module = "tests.analysis.slow_start_parser"
    assert module not in sys.modules
    return ParserSpec("slow-start", "1", _SlowStart(module))


class _SlowStart:
    """Stands for the slow module's ``parse``: unpickled (in a worker), it imports that module
    and becomes its function, as a parser function pickled by reference would."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __call__(self, text: str, path: str) -> bytes:
        raise AssertionError("parsed in the test process")

    def __reduce__(self) -> tuple[Callable[[str], Callable[[str, str], bytes]], tuple[str]]:
        return _module_parse, (self.module,)


def _module_parse(module: str) -> Callable[[str, str], bytes]:
    parse: Callable[[str, str], bytes] = importlib.import_module(module).parse
    return parse


def test_a_slow_worker_start_does_not_count_against_the_first_files() -> None:
    # Workers take 3 s to load the parser; each file may take 1 s. Counting the start-up in
    # the first files' budget (as before) lost them, and a lost head-side file looks removed.
    files = {f"pkg/m{i}.py": f"X = {i}\n" for i in range(6)}
    parsed = ParsedFiles(
        _slow_start_parser(),
        MemoryParseCache(),
        InputLimits(seconds_per_file=1.0, parallel_from=2, parallel_from_when_ready=2),
    )
    found = parsed.get_many(MemoryTree(files), sorted(files))
    assert parsed.skipped == {}
    assert found == {path: f"{path}:{len(text)}".encode() for path, text in files.items()}


def test_a_file_over_its_parse_budget_is_still_listed_and_the_others_parsed() -> None:
    files = {"pkg/a.py": "A = 1\n", "slow/b.py": "B = 2\n", "pkg/c.py": "C = 3\n"}
    parsed = ParsedFiles(
        _slow_start_parser(),
        MemoryParseCache(),
        InputLimits(seconds_per_file=1.0, parallel_from=2, parallel_from_when_ready=2),
    )
    found = parsed.get_many(MemoryTree(files), sorted(files))
    assert sorted(found) == ["pkg/a.py", "pkg/c.py"]
    assert [(n.path, n.reason) for n in parsed.skipped.values()] == [
        ("slow/b.py", "parsing took longer than 1 s")
    ]


def test_a_file_that_ran_out_of_time_is_not_given_its_budget_again_by_the_next_reader() -> None:
    # the prefetch, both graphs and the API comparison each ask for the same content: a
    # hostile file must cost its budget once, not once per reader
    files = {"pkg/a.py": "A = 11\n", "slow/late.py": "L = 2\n", "pkg/c.py": "C = 33\n"}
    limits = InputLimits(seconds_per_file=1.0, parallel_from=2, parallel_from_when_ready=2)
    first = ParsedFiles(_slow_start_parser(), MemoryParseCache(), limits)
    first.get_many(MemoryTree(files), sorted(files))
    assert "slow/late.py" in first.skipped

    again = ParsedFiles(_slow_start_parser(), MemoryParseCache(), limits)
    started = time.monotonic()
    found = again.get_many(MemoryTree({"slow/late.py": files["slow/late.py"]}), ["slow/late.py"])
    assert found == {}
    assert again.skipped["slow/late.py"].reason == "parsing took longer than 1 s"
    assert again.parsed_count == 0 and time.monotonic() - started < 1.0


def test_a_timed_out_content_gets_a_fresh_try_once_its_note_is_old() -> None:
    notes = TimedOut(seconds=0.05)
    notes.note("python/1/abc", "parsing took longer than 20 s")
    assert notes.reason("python/1/abc") == "parsing took longer than 20 s"
    time.sleep(0.1)
    assert notes.reason("python/1/abc") is None


def test_workers_that_cannot_start_in_time_leave_the_files_to_the_inline_parser() -> None:
    files = {f"pkg/m{i}.py": f"X = {i}\n" for i in range(3)}
    parsed = ParsedFiles(
        ParserSpec("pid", "1", _pid_parser),
        MemoryParseCache(),
        InputLimits(startup_seconds=0.0, parallel_from=2, parallel_from_when_ready=2),
    )
    pids = {int(data) for data in parsed.get_many(MemoryTree(files), sorted(files)).values()}
    assert pids == {os.getpid()}
    assert parsed.skipped == {}


_MAIN_SCRIPT = """
import os, sys
if __name__ != "__main__":  # run again in a pool process, as __mp_main__
    with open(os.environ["PRFLOW_TEST_MARK"], "a", encoding="utf-8") as mark:
        mark.write(__name__ + "\\n")
if __name__ == "__main__":
    from prflow.analysis.parse_cache import InputLimits, MemoryParseCache, ParsedFiles
    from prflow.analysis.py_summary import summary_parser
    from prflow.source_tree import MemoryTree

    files = {f"m{i}.py": f"X{i} = {i}\\n" for i in range(4)}
    limits = InputLimits(parallel_from=2, parallel_from_when_ready=2)
    parsed = ParsedFiles(summary_parser(), MemoryParseCache(), limits)
    print(len(parsed.get_many(MemoryTree(files), sorted(files))), parsed.parsed_count)
"""


def test_pool_processes_do_not_run_the_parents_main_module_again(tmp_path: Path) -> None:
    # The warm worker's main module (and the prflow script) import pydantic and the settings:
    # each pool process running it again paid that before its first parse.
    script, mark = tmp_path / "main_script.py", tmp_path / "mark.txt"
    script.write_text(_MAIN_SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "PRFLOW_TEST_MARK": str(mark)},
    )
    assert done.stdout.split() == ["4", "4"]  # every file parsed, in the pool
    assert not mark.exists(), mark.read_text(encoding="utf-8")
