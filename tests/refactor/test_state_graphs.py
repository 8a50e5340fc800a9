"""A workspace state's import graph comes from the base commit's graph: the same edges as a
whole build, the unchanged files never re-read, and the audit's findings unchanged."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import pytest

from prflow.imports import ImportGraph, build_import_graph
from prflow.refactor.audit import audit
from prflow.refactor.graphs import GraphMemory, state_graph
from prflow.source_tree import MemoryTree
from tests.refactor.test_audit import BASE

CASES: dict[str, dict[str, str | None]] = {
    "a function renamed in its module": {
        "storage/files.py": BASE["storage/files.py"].replace("def read_text", "def load_text")
    },
    "a caller that imports a name its module lacks": {
        "app/service.py": "from storage.files import read_bytes\n" + BASE["app/service.py"]
    },
    "a new module imported by an old one": {
        "storage/paths.py": "from storage.files import read_text\n",
        "app/service.py": "from storage import paths\n" + BASE["app/service.py"],
    },
    "a deleted module its importers still name": {"storage/files.py": None},
    "a module moved and its importers updated": {
        "storage/files.py": None,
        "storage/io.py": BASE["storage/files.py"],
        "app/service.py": BASE["app/service.py"].replace("storage.files", "storage.io"),
        "tests/test_files.py": "from storage.io import read_text\n",
    },
    "an import cycle and a test import": {
        "storage/files.py": "from app.service import copy\nimport tests.test_files\n"
        + BASE["storage/files.py"]
    },
}

FINDS = {
    "a function renamed in its module",
    "a caller that imports a name its module lacks",
    "an import cycle and a test import",
    "a deleted module its importers still name",
}


class CountingTree(MemoryTree):
    """A tree that records which files were read."""

    def __init__(self, files: dict[str, str]) -> None:
        super().__init__(files)
        self.read: set[str] = set()

    def read_text(self, path: str) -> str | None:
        self.read.add(path)
        return super().read_text(path)


def apply(files: dict[str, str], changes: dict[str, str | None]) -> dict[str, str]:
    out = dict(files)
    for path, text in changes.items():
        if text is None:
            out.pop(path, None)
        else:
            out[path] = text
    return out


def exists(changes: dict[str, str | None]) -> dict[str, bool]:
    return {path: text is not None for path, text in changes.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_state_graph_has_the_edges_a_whole_build_has(case: str) -> None:
    base = MemoryTree(BASE)
    state = MemoryTree(apply(BASE, CASES[case]))
    derived = state_graph(build_import_graph(base), base, state, exists(CASES[case]))
    assert derived.edges == build_import_graph(state).edges


def test_an_edit_in_place_re_reads_only_the_edited_files() -> None:
    base = MemoryTree(BASE)
    changes: dict[str, str | None] = {"app/service.py": "import app\n" + BASE["app/service.py"]}
    state = CountingTree(apply(BASE, changes))
    derived = state_graph(build_import_graph(base), base, state, exists(changes))
    assert state.read == {"app/service.py"}
    assert ("app/service.py", "app/__init__.py") in {(e.importer, e.target) for e in derived.edges}


def test_a_state_without_changes_is_the_base_graph() -> None:
    base = MemoryTree(BASE)
    graph = build_import_graph(base)
    assert state_graph(graph, base, CountingTree(BASE), {}) is graph


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_audit_finds_the_same_with_derived_graphs(case: str) -> None:
    base = MemoryTree(BASE)
    state = MemoryTree(apply(BASE, CASES[case]))
    changed = sorted(CASES[case])
    graphs = (
        build_import_graph(base),
        state_graph(build_import_graph(base), base, state, exists(CASES[case])),
    )
    whole = audit(changed, base, state, layers=["storage", "app"])
    derived = audit(changed, base, state, layers=["storage", "app"], graphs=graphs)
    assert bool(whole.findings) == (case in FINDS)  # the comparison is of something
    assert derived == whole


def test_graph_memory_builds_a_key_once_and_forgets_the_oldest() -> None:
    memory = GraphMemory(size=2)
    built: list[str] = []

    def build(name: str) -> Callable[[], ImportGraph]:
        def go() -> ImportGraph:
            built.append(name)
            return build_import_graph(MemoryTree({f"{name}.py": ""}))

        return go

    first = memory.get_or_build(("a",), build("a"))
    assert memory.get_or_build(("a",), build("a")) is first
    memory.get_or_build(("b",), build("b"))
    memory.get_or_build(("c",), build("c"))
    memory.get_or_build(("a",), build("a"))
    assert built == ["a", "b", "c", "a"]


def test_a_step_parses_each_file_once_however_many_importers_it_has(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    core = "def f(a):\n    return a\n\n\ndef g(a):\n    return a\n"
    files = {
        "pkg/__init__.py": "from pkg.core import f, g\n",
        "pkg/core.py": core,
        **{f"app/use{n}.py": "from pkg import f, g\n\nf(1)\ng(2)\n" for n in range(20)},
    }
    after = {**files, "pkg/core.py": core.replace("def g(a)", "def g(a, b)")}
    parsed: list[str] = []
    real = ast.parse

    def counting(source: str, filename: str = "<unknown>", *args: Any, **kw: Any) -> Any:
        parsed.append(filename)
        return real(source, filename, *args, **kw)

    before_tree, after_tree = MemoryTree(files), MemoryTree(after)
    graphs = (build_import_graph(before_tree), build_import_graph(after_tree))
    monkeypatch.setattr(ast, "parse", counting)
    users = [f"app/use{n}.py" for n in range(20)]  # in scope as a step's own files are
    report = audit(["pkg/core.py"], before_tree, after_tree, graphs=graphs, extra_scope=users)
    assert len([f for f in report.errors if f.check == "signature"]) == 20
    assert parsed.count("pkg/__init__.py") == 1  # unchanged: one parse for both trees
    assert parsed.count("pkg/core.py") == 2  # changed: once per tree
    assert max(parsed.count(f"app/use{n}.py") for n in range(20)) == 1
