"""A small package whose helper is renamed across its modules and tests, and scripted models
that rename it: split across steps, leaving one test file behind, writing nonsense, or
finding nothing to do.

``notes.store.read_note`` is re-exported by ``notes/__init__.py``, called through the
module by ``notes/report.py``, patched by name in ``tests/test_report.py``
(``monkeypatch.setattr(store, "read_note", ...)``: a string, so only running the tests
can tell when that file is left behind), and imported by name in
``tests/test_store.py``. The target of "rename it to load_note" is every
``read_note`` replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.sample_repos import commit_all, init_repo, write_files
from tests.support.scripted_anthropic import ToolUse, Turn
from tests.support.scripted_edits import file_change

OLD, NEW = "read_note", "load_note"
DIRECTIVE = "Rename read_note to load_note across the notes package and its tests"
PLANNER_KEY = "You turn one refactor directive into a plan"

FILES: dict[str, str] = {
    "pyproject.toml": (
        '[project]\nname = "notes"\nversion = "0.1.0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "notes/__init__.py": (
        '"""Notes on disk."""\n\nfrom notes.store import read_note, write_note\n\n'
        '__all__ = ["read_note", "write_note"]\n'
    ),
    "notes/store.py": (
        "from pathlib import Path\n\n\n"
        "def read_note(path: Path) -> str:\n"
        '    return path.read_text(encoding="utf-8")\n\n\n'
        "def write_note(path: Path, text: str) -> None:\n"
        '    path.write_text(text, encoding="utf-8")\n'
    ),
    "notes/report.py": (
        "from pathlib import Path\n\nfrom notes import store\n\n\n"
        "def word_count(path: Path) -> int:\n"
        "    return len(store.read_note(path).split())\n"
    ),
    "tests/__init__.py": "",
    "tests/test_store.py": (
        "from notes import read_note, write_note\n\n\n"
        "def test_round_trip(tmp_path):\n"
        '    write_note(tmp_path / "a", "hi")\n'
        '    assert read_note(tmp_path / "a") == "hi"\n'
    ),
    "tests/test_report.py": (
        "from notes import store\nfrom notes.report import word_count\n\n\n"
        "def test_word_count(tmp_path):\n"
        '    store.write_note(tmp_path / "a", "one two")\n'
        '    assert word_count(tmp_path / "a") == 2\n\n\n'
        "def test_read_is_patched(monkeypatch, tmp_path):\n"
        '    monkeypatch.setattr(store, "read_note", lambda path: "patched")\n'
        '    assert word_count(tmp_path / "a") == 1\n'
    ),
}
TARGET = {path: text.replace(OLD, NEW) for path, text in FILES.items()}
PACKAGE = ["notes/__init__.py", "notes/store.py", "notes/report.py"]
TESTS = ["tests/test_store.py", "tests/test_report.py"]


def build_notes_repo(path: Path, extra: dict[str, str | bytes | None] | None = None) -> Path:
    repo = init_repo(path)
    write_files(repo, {**FILES, **(extra or {})})
    commit_all(repo, "notes: read_note")
    return repo


def step(tid: str, files: list[str], deps: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "id": tid,
        "title": f"Rename {OLD} to {NEW} in {', '.join(files)}",
        "instructions": f"Replace every {OLD} by {NEW} in these files; nothing else.",
        "files": files,
        "depends_on": deps,
        **extra,
    }


def planner(plan: dict[str, Any]) -> list[Turn]:
    return [Turn(tool_uses=[ToolUse("submit_refactor_plan", plan)])]


def executor_key(task_id: str, attempt: int = 1) -> str:
    return f"(id {task_id}, attempt {attempt})"


def finish(summary: str = "renamed", *, done: bool = True) -> Turn:
    return Turn(tool_uses=[ToolUse("finish_task", {"done": done, "summary": summary})])


def rename_turns(files: list[str]) -> list[Turn]:
    """An executor that renames in ``files`` exactly as the target has it."""
    uses = [file_change(p, FILES[p], TARGET[p], f"rename {OLD} to {NEW}") for p in files]
    return [Turn(tool_uses=[u for u in uses if u is not None]), finish()]


def split_rename_script() -> dict[str, list[Turn]]:
    """The rename split file group by file group: the package's re-export first, then the
    definition with its caller, then the tests (the re-export names a function the next
    step defines)."""
    plan = {
        "summary": "Re-export, definition, tests.",
        "tasks": [
            step("reexport", ["notes/__init__.py"], []),
            step("define", ["notes/store.py", "notes/report.py"], ["reexport"]),
            step("tests", TESTS, ["define"]),
        ],
    }
    return {
        PLANNER_KEY: planner(plan),
        executor_key("reexport"): rename_turns(["notes/__init__.py"]),
        executor_key("define"): rename_turns(["notes/store.py", "notes/report.py"]),
        executor_key("tests"): rename_turns(TESTS),
    }


LEFT_REASON = "it patches store by a string, not by importing read_note"


def left_behind_script(*, declared: bool = True, attempts: int = 1) -> dict[str, list[Turn]]:
    """The package renamed, then a tests step that renames in one test file and leaves
    ``tests/test_report.py`` (which patches ``store.read_note`` by name) behind. With
    ``declared`` the executor claims that file needs no change (wrongly: only the suite can
    tell); without, it just finishes, every attempt."""
    plan = {
        "summary": "Package, then tests.",
        "tasks": [step("rename", PACKAGE, []), step("tests", TESTS, ["rename"])],
    }
    tests = rename_turns(["tests/test_store.py"])
    if declared:
        unchanged = [{"path": "tests/test_report.py", "reason": LEFT_REASON}]
        tests[-1] = Turn(
            tool_uses=[
                ToolUse("finish_task", {"done": True, "summary": "renamed", "unchanged": unchanged})
            ]
        )
    routes = {PLANNER_KEY: planner(plan), executor_key("rename"): rename_turns(PACKAGE)}
    for attempt in range(1, attempts + 1):
        routes[executor_key("tests", attempt)] = list(tests)
    return routes


def nothing_script(reason: str) -> dict[str, list[Turn]]:
    return {PLANNER_KEY: planner({"summary": "", "tasks": [], "nothing_to_do": reason})}


def nonsense_script(attempts: int) -> dict[str, list[Turn]]:
    """One step over every file whose executor writes text that does not parse."""
    plan = {"summary": "Rename.", "tasks": [step("rename", [*PACKAGE, *TESTS], [])]}
    garbage = file_change(
        "notes/store.py", FILES["notes/store.py"], "def load_note(:\n  ?? nonsense\n", "rename"
    )
    assert garbage is not None
    routes = {PLANNER_KEY: planner(plan)}
    for attempt in range(1, attempts + 1):
        routes[executor_key("rename", attempt)] = [Turn(tool_uses=[garbage]), finish()]
    return routes
