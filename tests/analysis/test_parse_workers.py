"""Parse workers forked from a server started ahead of time (the warm worker does this while a
command connects): files are parsed in other processes, with the same answers as inline."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

from prflow.analysis.parse_cache import (
    PARSER_MODULES,
    InputLimits,
    MemoryParseCache,
    ParsedFiles,
    ParserSpec,
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
