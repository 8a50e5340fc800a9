"""A real Python project with a real pytest suite, and a scripted sync→async refactor of it.

``build_storage_repo`` commits a small package: ``storage/files.py`` does
blocking file I/O, ``app/service.py`` and ``app/report.py`` call it, and
``tests/`` checks both with plain pytest (coroutines run through
``asyncio.run``, so no plugin is needed). :func:`async_script` is what a model
would do to "convert storage/ to async and update callers and tests": a
planner turn, then per task the edits of an executor, quoting the real text of
the files so the exact-unique edit semantics accept them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.sample_repos import commit_all, init_repo, write_files
from tests.support.scripted_anthropic import ToolUse, Turn

DIRECTIVE = "Convert the sync file operations in storage/ to async and update callers and tests"
PLANNER_KEY = "You turn one refactor directive into a plan"

FILES: dict[str, str | bytes | None] = {
    "pyproject.toml": (
        '[project]\nname = "notes"\nversion = "0.1.0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "storage/__init__.py": "",
    "storage/files.py": (
        '"""Reading and writing note files."""\n\n'
        "from pathlib import Path\n\n\n"
        "def read_note(path: Path) -> str:\n"
        '    return path.read_text(encoding="utf-8")\n\n\n'
        "def write_note(path: Path, text: str) -> None:\n"
        '    path.write_text(text, encoding="utf-8")\n'
    ),
    "app/__init__.py": "",
    "app/service.py": (
        '"""Copying notes around."""\n\n'
        "from pathlib import Path\n\n"
        "from storage.files import read_note, write_note\n\n\n"
        "def copy_note(src: Path, dst: Path) -> int:\n"
        "    text = read_note(src)\n"
        "    write_note(dst, text)\n"
        "    return len(text)\n"
    ),
    "app/report.py": (
        '"""Counting words in notes."""\n\n'
        "from pathlib import Path\n\n"
        "from storage.files import read_note\n\n\n"
        "def word_count(path: Path) -> int:\n"
        "    return len(read_note(path).split())\n"
    ),
    "tests/__init__.py": "",
    "tests/test_files.py": (
        "from storage.files import read_note, write_note\n\n\n"
        "def test_round_trip(tmp_path):\n"
        '    target = tmp_path / "a.txt"\n'
        '    write_note(target, "hello")\n'
        '    assert read_note(target) == "hello"\n'
    ),
    "tests/test_service.py": (
        "from app.report import word_count\n"
        "from app.service import copy_note\n\n\n"
        "def test_copy(tmp_path):\n"
        '    (tmp_path / "a.txt").write_text("one two three")\n'
        '    assert copy_note(tmp_path / "a.txt", tmp_path / "b.txt") == 13\n'
        '    assert (tmp_path / "b.txt").read_text() == "one two three"\n\n\n'
        "def test_word_count(tmp_path):\n"
        '    (tmp_path / "a.txt").write_text("one two three")\n'
        '    assert word_count(tmp_path / "a.txt") == 3\n'
    ),
    "README.md": "# notes\n\nA tiny note store.\n",
}


BROKEN_SUITE: dict[str, str | bytes | None] = {
    "tests/test_legacy.py": (
        "def test_legacy_format():\n    assert 'v1' == 'v2'\n\n\n"
        "def test_legacy_size():\n    assert len('abc') == 4\n"
    ),
}
"""Two tests that fail before any change: 3 of 5 pass (60 %), below the 85 % bar."""


def build_storage_repo(path: Path, extra: dict[str, str | bytes | None] | None = None) -> Path:
    repo = init_repo(path)
    write_files(repo, {**FILES, **(extra or {})})
    commit_all(repo, "notes: sync storage")
    return repo


def task(tid: str, title: str, files: list[str], deps: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "id": tid,
        "title": title,
        "instructions": f"{title}. Keep behaviour identical.",
        "files": files,
        "depends_on": deps,
        **extra,
    }


PLAN = {
    "summary": "Make storage coroutines first, then their callers, then the tests.",
    "tasks": [
        task("core", "Make storage/files.py async", ["storage/files.py"], []),
        task("callers", "Await storage in app/", ["app/service.py", "app/report.py"], ["core"]),
        task(
            "tests",
            "Run the coroutines in the tests",
            ["tests/test_files.py", "tests/test_service.py"],
            ["callers"],
        ),
    ],
}


def edit(path: str, *pairs: tuple[str, str]) -> ToolUse:
    return ToolUse(
        "edit_file",
        {
            "path": path,
            "edits": [{"old_string": o, "new_string": n, "reason": "async I/O"} for o, n in pairs],
        },
    )


def finish(summary: str = "done", *, done: bool = True) -> Turn:
    return Turn(tool_uses=[ToolUse("finish_task", {"done": done, "summary": summary})])


CORE_EDIT = edit(
    "storage/files.py",
    (
        '"""Reading and writing note files."""\n\n',
        '"""Reading and writing note files."""\n\nimport asyncio\n',
    ),
    (
        "def read_note(path: Path) -> str:\n    return path.read_text(",
        "async def read_note(path: Path) -> str:\n    return await asyncio.to_thread(path.read_text, ",
    ),
    (
        "def write_note(path: Path, text: str) -> None:\n    path.write_text(text, ",
        "async def write_note(path: Path, text: str) -> None:\n    await asyncio.to_thread(path.write_text, text, ",
    ),
)
CALLERS_EDITS = [
    edit(
        "app/service.py",
        (
            "def copy_note(src: Path, dst: Path) -> int:\n    text = read_note(src)\n    write_note(dst, text)",
            "async def copy_note(src: Path, dst: Path) -> int:\n    text = await read_note(src)\n    await write_note(dst, text)",
        ),
    ),
    edit(
        "app/report.py",
        (
            "def word_count(path: Path) -> int:\n    return len(read_note(path).split())",
            "async def word_count(path: Path) -> int:\n    return len((await read_note(path)).split())",
        ),
    ),
]
TESTS_EDITS = [
    edit(
        "tests/test_files.py",
        ("from storage.files", "import asyncio\n\nfrom storage.files"),
        (
            '    write_note(target, "hello")\n    assert read_note(target) == "hello"',
            '    asyncio.run(write_note(target, "hello"))\n    assert asyncio.run(read_note(target)) == "hello"',
        ),
    ),
    edit(
        "tests/test_service.py",
        (
            "from app.report import word_count",
            "import asyncio\n\nfrom app.report import word_count",
        ),
        (
            'assert copy_note(tmp_path / "a.txt", tmp_path / "b.txt") == 13',
            'assert asyncio.run(copy_note(tmp_path / "a.txt", tmp_path / "b.txt")) == 13',
        ),
        (
            'assert word_count(tmp_path / "a.txt") == 3',
            'assert asyncio.run(word_count(tmp_path / "a.txt")) == 3',
        ),
    ),
]
# A broken callers edit: only service.py is converted, report.py still calls the coroutine
# synchronously; the auditor catches it (unawaited coroutine).
HALF_CALLERS = CALLERS_EDITS[0]


def executor_key(task_id: str, attempt: int) -> str:
    return f"(id {task_id}, attempt {attempt})"


DOCS_TASK = task(
    "docs", "Say in the README that storage is async", ["README.md"], [], critical=False
)
DOCS_EDIT = edit("README.md", ("A tiny note store.", "A tiny note store with async storage."))


def async_script(
    *, broken_callers: int = 0, docs_failures: int | None = None
) -> dict[str, list[Turn]]:
    """The whole refactor, one conversation per agent; ``broken_callers`` attempts of the
    callers task leave report.py unconverted first. With ``docs_failures`` set, the plan
    has a fourth, non-critical task whose executor gives up that many times first."""
    plan = dict(PLAN)
    if docs_failures is not None:
        plan["tasks"] = [*PLAN["tasks"], DOCS_TASK]  # type: ignore[list-item]
    routes: dict[str, list[Turn]] = {
        PLANNER_KEY: [Turn(tool_uses=[ToolUse("submit_refactor_plan", plan)])],
        executor_key("core", 1): [
            Turn(tool_uses=[ToolUse("read_file", {"path": "storage/files.py"})]),
            Turn(tool_uses=[CORE_EDIT]),
            finish("storage is async"),
        ],
        executor_key("tests", 1): [Turn(tool_uses=TESTS_EDITS), finish("tests run coroutines")],
    }
    for attempt in range(1, broken_callers + 1):
        routes[executor_key("callers", attempt)] = [Turn(tool_uses=[HALF_CALLERS]), finish()]
    routes[executor_key("callers", broken_callers + 1)] = [
        Turn(tool_uses=CALLERS_EDITS),
        finish("callers await"),
    ]
    if docs_failures is not None:
        for attempt in range(1, docs_failures + 1):
            routes[executor_key("docs", attempt)] = [
                Turn(tool_uses=[edit("README.md", ("An async note store.", "x"))]),
                finish("the README has no such sentence", done=False),
            ]
        routes[executor_key("docs", docs_failures + 1)] = [Turn(tool_uses=[DOCS_EDIT]), finish()]
    return routes
